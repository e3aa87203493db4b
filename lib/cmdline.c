/* lib/cmdline.c -- key=value kernel options (host unit-tested). */
#include "lib/cmdline.h"
#include "lib/string.h"

static char raw[CMDLINE_MAX];
static char buf[CMDLINE_MAX];
static struct {
	const char *key;
	const char *val;
} opts[CMDLINE_MAX_OPTS];
static int nopts;

int cmdline_parse(const char *s)
{
	nopts = 0;
	raw[0] = buf[0] = 0;
	if (strlen(s) >= CMDLINE_MAX)
		return -1;
	strlcpy(raw, s, sizeof(raw));
	strlcpy(buf, s, sizeof(buf));

	char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (nopts == CMDLINE_MAX_OPTS)
			return -1;
		char *key = p, *val = NULL;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '=' && !val) {
				*p = 0;
				val = p + 1;
			}
			p++;
		}
		if (*p)
			*p++ = 0;
		opts[nopts].key = key;
		opts[nopts].val = val ? val : "";
		nopts++;
	}
	return nopts;
}

const char *cmdline_get(const char *key)
{
	for (int i = nopts - 1; i >= 0; i--)
		if (strcmp(opts[i].key, key) == 0)
			return opts[i].val;
	return NULL;
}

const char *cmdline_get_or(const char *key, const char *def)
{
	const char *v = cmdline_get(key);
	return v ? v : def;
}

uint64_t cmdline_get_u64(const char *key, uint64_t def)
{
	const char *v = cmdline_get(key);
	if (!v || !*v)
		return def;
	uint64_t n = 0;
	unsigned base = 10;
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		v += 2;
	}
	for (; *v; v++) {
		unsigned d;
		if (*v >= '0' && *v <= '9')
			d = *v - '0';
		else if (base == 16 && *v >= 'a' && *v <= 'f')
			d = *v - 'a' + 10;
		else if (base == 16 && *v >= 'A' && *v <= 'F')
			d = *v - 'A' + 10;
		else
			break;
		n = n * base + d;
	}
	switch (*v) {
	case 'K': case 'k': n <<= 10; v++; break;
	case 'M': case 'm': n <<= 20; v++; break;
	case 'G': case 'g': n <<= 30; v++; break;
	}
	return *v ? def : n;
}

bool cmdline_has(const char *key)
{
	return cmdline_get(key) != NULL;
}

bool cmdline_list_has(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == wl && strncmp(p, word, l) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

const char *cmdline_raw(void)
{
	return raw;
}
