/* lintcmd.h: `dra-celc lint` (src/celc/lintcmd.c; the rules are the library's, docs/lint.md). */
#ifndef CELC_LINTCMD_H
#define CELC_LINTCMD_H

int celc_lint(int argc, char **argv);

#endif
