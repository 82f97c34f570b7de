/* replay.h: `dra-celc replay` (src/celc/replay.c; docs/fairness.md, docs/dra-celc.md). */
#ifndef CELC_REPLAY_H
#define CELC_REPLAY_H

int celc_replay(int argc, char **argv);

#endif
