/* user/sh/sh.h -- the Pagoda shell: a command language small enough to read
 * in one sitting.
 *
 *   line     := and_or ((';' | '&') and_or)* [';' | '&']
 *   and_or   := pipeline (('&&' | '||') pipeline)*
 *   pipeline := command ('|' command)*
 *   command  := WORD... with redirections '<' FILE, '>' FILE, '>>' FILE
 *
 * Words may be quoted ('...' literally, "..." with $? expanded) or escaped
 * with a backslash; '#' starts a comment. $? is the status of the last
 * command (128 + signal for a killed one), $$ the shell's pid. Builtins: exit [N], cd [DIR].
 * Other commands run through execvp: looked up in $PATH (default /bin)
 * unless they contain a '/'.
 */
#ifndef SH_H
#define SH_H

#include <stddef.h>

enum tok_kind {
	T_WORD,		/* a word (text in token.word)   */
	T_SEMI,		/* ;                             */
	T_AMP,		/* &                             */
	T_AND,		/* &&                            */
	T_OR,		/* ||                            */
	T_PIPE,		/* |                             */
	T_IN,		/* <                             */
	T_OUT,		/* >                             */
	T_APPEND,	/* >>                            */
};

struct token {
	enum tok_kind kind;
	char *word;	/* T_WORD only; may contain SH_STATUS_MARK */
};

/* In a lexed word, this byte stands for $? (expanded when the command
 * runs, so `false; echo $?` sees false's status). */
#define SH_STATUS_MARK '\001'

#define SH_LINE_MAX   1024
#define SH_TOKENS_MAX 256

/* Room for the words of one line: each input byte gives at most 5 output
 * bytes ("$$" -> up to 10 digits) plus one NUL per word. */
#define SH_ARENA_SIZE (6 * SH_LINE_MAX)

/* sh_lex: split line (shorter than SH_LINE_MAX) into at most max tokens,
 * their text stored in arena (SH_ARENA_SIZE bytes). Returns the number of tokens, or
 * -1 after printing a syntax error (unterminated quote, too many tokens). */
int sh_lex(const char *line, struct token *toks, int max, char *arena);

/* sh_run_line: run all commands of a lexed line; returns the status of the
 * last one run (also left in sh_last_status). A syntax error gives 2. */
int sh_run_line(struct token *toks, int n);

/* sh_readline: read one line from fd into buf (NUL-terminated, without the
 * newline). With edit, echo what is typed and handle backspace and Ctrl-U;
 * \r or \n ends the line, Ctrl-D on an empty line is end of input. Returns
 * the length, or -1 at end of input. */
int sh_readline(int fd, char *buf, size_t size, int edit);

/* sh_terminal_echoes: true if fd is a terminal that echoes and edits input
 * itself (ECHO in its termios), so the shell must not. */
int sh_terminal_echoes(int fd);

/* The status of the last command, for $? and `exit` without argument. */
extern int sh_last_status;

/* True when reading commands from a terminal (or with -i): prompt, echo,
 * line editing, job numbers. */
extern int sh_interactive;

/* ^C (SIGINT) must only stop the foreground job: an interactive shell
 * ignores it, its foreground children get the default action back, and
 * background jobs keep ignoring it. sh_sigint_setup decides at start;
 * sh_sigint_child/sh_sigint_background run in forked children. */
void sh_sigint_setup(void);
void sh_sigint_child(void);
void sh_sigint_background(void);

/* sh_run_string: lex and run one line of text; its status. */
int sh_run_string(const char *line);

#endif
