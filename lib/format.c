/* lib/format.c -- the printf engine (host unit-tested in tests/unit). */
#include "lib/format.h"

struct spec {
	bool left;     /* '-' flag */
	bool zero;     /* '0' flag */
	bool alt;      /* '#' flag: 0x prefix */
	int width;
	int prec;      /* -1: none */
};

static int emit_padded(format_out_t out, void *arg, const char *s, int len,
		       const struct spec *sp, char pad)
{
	int n = 0;
	int fill = sp->width > len ? sp->width - len : 0;

	if (!sp->left)
		for (; fill > 0; fill--, n++)
			out(pad, arg);
	for (int i = 0; i < len; i++, n++)
		out(s[i], arg);
	for (; fill > 0; fill--, n++)
		out(' ', arg);
	return n;
}

/* Render v in base into the end of buf; returns the start. */
static char *render_unsigned(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	return p;
}

static int emit_number(format_out_t out, void *arg, uint64_t v, bool neg,
		       unsigned base, bool upper, const char *prefix,
		       const struct spec *sp)
{
	char buf[32];
	char *end = buf + sizeof(buf);
	char *p = render_unsigned(end, v, base, upper);
	int n = 0;

	if (neg)
		*--p = '-';
	else
		for (int i = (int)__builtin_strlen(prefix) - 1; i >= 0; i--)
			*--p = prefix[i];
	if (sp->zero && !sp->left) {
		/* sign/prefix first, then zeros up to the width */
		int lead = neg ? 1 : (int)__builtin_strlen(prefix);
		for (int i = 0; i < lead; i++, n++)
			out(p[i], arg);
		struct spec rest = *sp;
		rest.width = sp->width > lead ? sp->width - lead : 0;
		return n + emit_padded(out, arg, p + lead, (int)(end - p) - lead,
				       &rest, '0');
	}
	return emit_padded(out, arg, p, (int)(end - p), sp, ' ');
}

/* The '#' prefix C gives a conversion: none for zero or decimal. */
static const char *alt_prefix(char conv, uint64_t v, const struct spec *sp)
{
	if (!sp->alt || v == 0)
		return "";
	return conv == 'x' ? "0x" : conv == 'X' ? "0X" : conv == 'o' ? "0" : "";
}

int format(format_out_t out, void *arg, const char *fmt, va_list ap)
{
	int n = 0;

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			out(*fmt, arg);
			n++;
			continue;
		}
		struct spec sp = { .prec = -1 };
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = true;
			else if (*fmt == '0')
				sp.zero = true;
			else if (*fmt == '#')
				sp.alt = true;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			sp.width = sp.width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			sp.prec = 0;
			for (fmt++; *fmt >= '0' && *fmt <= '9'; fmt++)
				sp.prec = sp.prec * 10 + (*fmt - '0');
		}
		int lng = 0;   /* 0 int, 1 long, 2 long long, -1 short, -2 char */
		for (;; fmt++) {
			if (*fmt == 'l' || *fmt == 'z')
				lng++;
			else if (*fmt == 'h')
				lng--;
			else
				break;
		}

		int64_t sv;
		uint64_t uv;
		switch (*fmt) {
		case 'd':
		case 'i':
			sv = lng > 0 ? va_arg(ap, long) : va_arg(ap, int);
			if (lng == -1)
				sv = (short)sv;
			else if (lng <= -2)
				sv = (signed char)sv;
			uv = sv < 0 ? -(uint64_t)sv : (uint64_t)sv;
			n += emit_number(out, arg, uv, sv < 0, 10, false, "", &sp);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			uv = lng > 0 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			if (lng == -1)
				uv = (unsigned short)uv;
			else if (lng <= -2)
				uv = (unsigned char)uv;
			n += emit_number(out, arg, uv, false,
					 *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16,
					 *fmt == 'X', alt_prefix(*fmt, uv, &sp), &sp);
			break;
		case 'p':
			uv = (uintptr_t)va_arg(ap, void *);
			n += emit_number(out, arg, uv, false, 16, false, "0x", &sp);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int len = 0;
			while (s[len] && (sp.prec < 0 || len < sp.prec))
				len++;
			n += emit_padded(out, arg, s, len, &sp, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			n += emit_padded(out, arg, &c, 1, &sp, ' ');
			break;
		}
		case '%':
			out('%', arg);
			n++;
			break;
		case '\0':
			return n;
		default:   /* unknown conversion: print it verbatim */
			out('%', arg);
			out(*fmt, arg);
			n += 2;
			break;
		}
	}
	return n;
}

struct bufout {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_putc(char c, void *arg)
{
	struct bufout *b = arg;
	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bufout b = { buf, size, 0 };
	int n = format(buf_putc, &b, fmt, ap);
	if (size)
		buf[b.pos < size ? b.pos : size - 1] = 0;
	return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
