/* hipdnn_cache_help.c — the one description of hipdnn-cache's command line, and everything
 * printed from it: `hipdnn-cache help`, `help COMMAND`, `COMMAND --help`, the usage line after a
 * usage error, and the man page (`hipdnn-cache --man`, which the build captures into
 * hipdnn-cache.1). Nothing about a command's synopsis, description or options is written anywhere
 * else.
 * Owns: the command table (name, synopsis, one paragraph, options with their help, whether
 * --json applies), text wrapping, roff escaping, hc_usage_error.
 * Does not own: parsing (hipdnn_cache.c checks arguments against what each command takes), what
 * the commands do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hipdnn_cache.h"

#define WIDTH 78

/* "--dir DIR" and what it does. */
typedef struct hc_opt {
    const char *spelling, *help;
} hc_opt;

typedef struct hc_cmd {
    const char *name;
    const char *synopsis;  /* after "hipdnn-cache [--dir DIR] [--json] " */
    const char *summary;   /* one line for the command list */
    const char *paragraph; /* help COMMAND and the man page */
    hc_opt opts[7];        /* ended by a NULL spelling */
} hc_cmd;

static const char intro[] =
    "Inspects, maintains and warms a hipdnn-jit kernel cache: the LMDB directory where the library "
    "keeps compiled kernels (kernel records) and the recipes of plans built before (plan records). "
    "The directory is --dir, else $HIPDNN_CACHE_DIR, else $XDG_CACHE_HOME/hipdnn-jit, else "
    "$HOME/.cache/hipdnn-jit. The tool uses only the library's public API (hipdnn_jit.h).";

static const char exit_text[] =
    "0 success; 1 the operation failed (one line on stderr naming what was wrong; also verify finding "
    "bad records without --fix, and warm when a graph failed or was not stored); 2 a usage error "
    "(an unknown command or option, a missing argument; the message is followed by the usage line).";

static const hc_opt global_opts[] = {
    {"--dir DIR", "the cache directory (default: see above)"},
    {"--json", "print one JSON document instead of text (every command but help)"},
    {"-h, --help", "this text; after a command, that command's help"},
    {"--version", "the library version, the cache's format and key schema versions, the run-time "
                  "compilers found (with --json: as JSON)"},
    {"--man", "the manual page in roff (man -l <(hipdnn-cache --man))"},
    {NULL, NULL},
};

static const hc_cmd cmds[] = {
    {"ls", "ls", "every record: kernels and plans, what each holds, size and age",
     "Lists every record, kernels first. A kernel record: key, arch, compiler and version, entry point, "
     "code and source sizes, created and last-used ages. A plan record: key, the graph it was built "
     "for (its operations and tensor count), arch and multiprocessor count, engine and knob values, "
     "kernel count, size and ages. Records are not counted per use (no hit counts are kept); the last "
     "use is. --json prints an array of objects with times as unix seconds and ages in seconds.",
     {{NULL, NULL}}},
    {"stats", "stats", "record counts, bytes, map size",
     "Counts the records and their bytes and reports the data file's map. On a directory that does "
     "not exist yet it prints zeros (mode \"missing\") and succeeds, creating nothing.",
     {{NULL, NULL}}},
    {"show", "show KEY [--source]", "one record in full; --source: a kernel's HIP source",
     "Prints one record (KEY: 32 hex digits, as ls prints them). A kernel: arch, compiler, entry, sizes, "
     "times and compile options. A plan: its graph, target, engine, knobs and the keys of its kernels "
     "in launch order.",
     {{"--source", "print only the kernel's HIP source, byte for byte as it was compiled (with --json: "
                   "the \"source\" field)"},
      {NULL, NULL}}},
    {"verify", "verify [--fix]", "check every record in full; --fix rebuilds without the bad ones",
     "Checks every record (header, key, checksums) and the data file's pages, and lists what failed. "
     "Bad records without --fix are exit status 1.",
     {{"--fix", "rebuild the data file from the records that verify (refused while another process has "
                "the cache open)"},
      {NULL, NULL}}},
    {"prune", "prune [--max-size SIZE] [--older-than AGE]", "delete old records, then the least recently used",
     "Deletes records unused for AGE, then the least recently used ones until the records fit in SIZE. "
     "At least one of the two is needed.",
     {{"--max-size SIZE", "bytes the records may keep: 123, 64K, 64M, 2G (0 empties the cache)"},
      {"--older-than AGE", "an age: 30d, 12h, 90m, 3600s, 2w"},
      {NULL, NULL}}},
    {"export", "export FILE", "write every valid record to a bundle file",
     "Writes every valid record to FILE, a bundle another machine's cache can import.", {{NULL, NULL}}},
    {"import", "import FILE", "add the records of a bundle file",
     "Adds the records of bundle FILE; the whole bundle is checked before anything is written, and a bad "
     "one leaves the cache unchanged. Creates the cache directory when it does not exist.",
     {{NULL, NULL}}},
    {"warm",
     "warm [--arch ARCH] [--sm-count N] [--jobs N] [--plugin LIB]... [--all-configs] [--skip-unsupported] GRAPH...",
     "compile operation graphs' kernels and plans into the cache",
     "Compiles the kernels of operation graphs into the cache. Each GRAPH is a hipDNN graph file "
     "(FlatBuffer .bin or JSON .json) or a directory of them. For each, the plan of the heuristics' "
     "first config whose engine compiles kernels is built with the cache attached, which records its "
     "kernels and the plan. Prints one line per graph (a progress bar on a terminal) and a summary; a "
     "graph that fails or could not be stored is named on stderr with the reason (exit status 1).",
     {{"--arch ARCH", "compile for ARCH (sm_90, sm_80, gfx942, ...) without using a GPU; required where "
                      "there is none (default: this machine's GPU)"},
      {"--sm-count N", "the target's multiprocessor count (default: the arch's usual one, 132 for sm_90); "
                       "plans are keyed by it"},
      {"--jobs N", "graphs compiled at once (default: the processors, at most 8)"},
      {"--plugin LIB", "load custom-op plugin library LIB (repeatable) before reading the graphs, for graphs "
                       "whose custom ops it provides"},
      {"--all-configs", "every ranked config that compiles, not only the first"},
      {"--skip-unsupported", "a graph no compiling engine supports is skipped, not a failure"},
      {NULL, NULL}}},
    {"help", "help [COMMAND]", "this text, or one command's",
     "Prints the list of commands, or COMMAND's synopsis, description and options.", {{NULL, NULL}}},
};

enum { N_CMDS = (int)(sizeof cmds / sizeof cmds[0]) };

static const hc_cmd *find(const char *name)
{
    for (int i = 0; name != NULL && i < N_CMDS; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

bool hc_is_command(const char *name) { return find(name) != NULL; }

/* ---- text ------------------------------------------------------------------------------------ */

/* Prints text filled to WIDTH columns, each line indented by `indent` (the first line already is,
 * by `first` columns written before). */
static void fill(FILE *f, const char *text, int indent, int first)
{
    int col = first;
    const char *p = text;
    while (*p != '\0') {
        size_t n = strcspn(p, " ");
        if (col > indent && col + 1 + (int)n > WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, n, f);
        col += (int)n;
        p += n;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

/* "  --fix               help, filled" */
static void put_opt(FILE *f, const hc_opt *o)
{
    int w = fprintf(f, "  %-20s", o->spelling);
    if (w > 22) {
        fprintf(f, "\n%22s", "");
        w = 22;
    }
    fill(f, o->help, 22, w);
}

static void put_usage(FILE *f, const hc_cmd *c)
{
    if (c == NULL) {
        fputs("usage: hipdnn-cache [--dir DIR] [--json] COMMAND [ARGS]\n", f);
        return;
    }
    int w = fprintf(f, "usage: hipdnn-cache%s", strcmp(c->name, "help") == 0 ? "" : " [--dir DIR] [--json]");
    fill(f, c->synopsis, 8, w);
}

static void put_command_help(FILE *f, const hc_cmd *c)
{
    put_usage(f, c);
    fputc('\n', f);
    fill(f, c->paragraph, 0, 0);
    if (c->opts[0].spelling != NULL) {
        fputs("\noptions:\n", f);
        for (const hc_opt *o = c->opts; o->spelling != NULL; o++)
            put_opt(f, o);
    }
    fputs("\nglobal options: --dir DIR, --json (see hipdnn-cache help)\n", f);
}

int hc_help(const char *command)
{
    if (command != NULL) {
        const hc_cmd *c = find(command);
        if (c == NULL)
            return hc_usage_error(NULL, "help: unknown command '%s'", command);
        put_command_help(stdout, c);
        return HC_EXIT_OK;
    }
    put_usage(stdout, NULL);
    fputs("       hipdnn-cache help [COMMAND] | --version [--json] | --man\n\n", stdout);
    fill(stdout, intro, 0, 0);
    fputs("\ncommands:\n", stdout);
    for (int i = 0; i < N_CMDS; i++) {
        int w = fprintf(stdout, "  %s", cmds[i].synopsis);
        if (w > 24) {
            fprintf(stdout, "\n%26s", "");
            w = 26;
        } else {
            w += fprintf(stdout, "%*s", 26 - w, "");
        }
        fill(stdout, cmds[i].summary, 26, w);
    }
    fputs("\nglobal options:\n", stdout);
    for (const hc_opt *o = global_opts; o->spelling != NULL; o++)
        put_opt(stdout, o);
    fputs("\n'hipdnn-cache help COMMAND' or 'hipdnn-cache COMMAND --help': a command's options.\n\nexit status:",
          stdout);
    fill(stdout, exit_text, 0, 12);
    return HC_EXIT_OK;
}

int hc_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hipdnn-cache: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const hc_cmd *c = find(command);
    fprintf(stderr, " (hipdnn-cache help%s%s)\n", c != NULL ? " " : "", c != NULL ? c->name : "");
    if (c != NULL)
        fprintf(stderr, "usage: hipdnn-cache%s %s\n", strcmp(c->name, "help") == 0 ? "" : " [--dir DIR] [--json]",
                c->synopsis);
    else
        put_usage(stderr, NULL);
    return HC_EXIT_USAGE;
}

/* ---- the man page ---------------------------------------------------------------------------- */

/* Text for roff: backslashes and hyphens escaped, no line starting with a control character. */
static void roff(const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", stdout);
    for (; *s != '\0'; s++) {
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);
        else
            fputc(*s, stdout);
    }
}

static void roff_line(const char *macro, const char *text)
{
    fputs(macro, stdout);
    roff(text);
    fputc('\n', stdout);
}

static void man_opts(const hc_opt *opts)
{
    for (const hc_opt *o = opts; o->spelling != NULL; o++) {
        fputs(".TP\n", stdout);
        roff_line("\\fB", o->spelling);
        fputs("\\fR", stdout);
        roff_line("", o->help);
    }
}

int hc_man(const char *version)
{
    fputs(".TH HIPDNN\\-CACHE 1 \"\" \"hipdnn-jit ", stdout);
    roff(version);
    fputs("\" \"User Commands\"\n.SH NAME\nhipdnn\\-cache \\- inspect, maintain and warm a hipdnn\\-jit kernel "
          "cache\n.SH SYNOPSIS\n", stdout);
    for (int i = 0; i < N_CMDS; i++) {
        fputs(".B hipdnn\\-cache\n", stdout);
        roff_line(strcmp(cmds[i].name, "help") == 0 ? "" : "[\\-\\-dir DIR] [\\-\\-json] ", cmds[i].synopsis);
        fputs(".br\n", stdout);
    }
    fputs(".B hipdnn\\-cache\n\\-\\-version [\\-\\-json] | \\-\\-man | \\-\\-help\n.SH DESCRIPTION\n", stdout);
    roff_line("", intro);
    fputs(".SH COMMANDS\n", stdout);
    for (int i = 0; i < N_CMDS; i++) {
        fputs(".TP\n", stdout);
        roff_line(".B ", cmds[i].synopsis);
        roff_line("", cmds[i].paragraph);
        if (cmds[i].opts[0].spelling != NULL) {
            fputs(".RS\n", stdout);
            man_opts(cmds[i].opts);
            fputs(".RE\n", stdout);
        }
    }
    fputs(".SH OPTIONS\n", stdout);
    man_opts(global_opts);
    fputs(".SH EXIT STATUS\n", stdout);
    roff_line("", exit_text);
    fputs(".SH ENVIRONMENT\n.TP\n.B HIPDNN_CACHE_DIR\nthe default cache directory\n.TP\n.B XDG_CACHE_HOME\n"
          "the default's parent when HIPDNN_CACHE_DIR is not set\n.SH SEE ALSO\nhipdnn_jit.h (the "
          "hipdnnKernelCache*_ext maintenance calls)\n", stdout);
    return HC_EXIT_OK;
}
