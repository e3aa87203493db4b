/* user/sh/lex.c -- split a command line into words and operators. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sh.h"

/* operator: the operator token starting at s, and its length in *len;
 * -1 if s does not start one. Longest match first (&& before &). */
static int operator(const char *s, int *len)
{
	static const struct { const char *text; enum tok_kind kind; } ops[] = {
		{ "&&", T_AND }, { "||", T_OR }, { ">>", T_APPEND }, { ";", T_SEMI },
		{ "&", T_AMP },  { "|", T_PIPE }, { "<", T_IN },      { ">", T_OUT },
	};

	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);
		if (strncmp(s, ops[i].text, n) == 0) {
			*len = (int)n;
			return ops[i].kind;
		}
	}
	return -1;
}

/* dollar: if s starts $? or $$, append its expansion to *out (advancing
 * it) and return 2 (characters used); else 0. $? becomes the status mark
 * (expanded at run time); $$ is the shell's pid, fixed when lexing. */
static int dollar(const char *s, char **out)
{
	if (s[0] != '$' || (s[1] != '?' && s[1] != '$'))
		return 0;
	if (s[1] == '?')
		*(*out)++ = SH_STATUS_MARK;
	else
		*out += sprintf(*out, "%d", (int)getpid());
	return 2;
}

/* word: copy the word starting at *sp into out (NUL-terminated), handling
 * quotes, backslashes and $?; advance *sp past it. Returns the end of the
 * copied text, or NULL (after a message) on an unterminated quote. */
static char *word(const char **sp, char *out)
{
	const char *s = *sp;
	int len;
	char quote = 0;

	for (; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
			else if (quote == '"' && dollar(s, &out))
				s++;
			else if (quote == '"' && s[0] == '\\' && s[1] && strchr("\"\\$", s[1]))
				*out++ = *++s;
			else
				*out++ = *s;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == '\\' && s[1]) {
			*out++ = *++s;
		} else if (dollar(s, &out)) {
			s++;
		} else if (strchr(" \t\r\n#", *s) || operator(s, &len) >= 0) {
			break;
		} else {
			*out++ = *s;
		}
	}
	if (quote) {
		fprintf(stderr, "sh: unterminated %c\n", quote);
		return NULL;
	}
	*out = '\0';
	*sp = s;
	return out;
}

int sh_lex(const char *line, struct token *toks, int max, char *arena)
{
	const char *s = line;
	int n = 0, kind, len;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (*s == '\0' || *s == '#')
			return n;
		if (n == max) {
			fprintf(stderr, "sh: too many words\n");
			return -1;
		}
		if ((kind = operator(s, &len)) >= 0) {
			toks[n++] = (struct token){ .kind = (enum tok_kind)kind, .word = NULL };
			s += len;
			continue;
		}
		toks[n] = (struct token){ .kind = T_WORD, .word = arena };
		if ((arena = word(&s, arena)) == NULL)
			return -1;
		arena++;
		n++;
	}
}
