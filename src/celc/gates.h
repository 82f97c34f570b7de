/* gates.h: the release and the feature gates a command of dra-celc reproduces
 * (--kubernetes-version, --features, --feature-gates), read one way by allocate, explain and
 * replay. src/celc/gates.c. */
#ifndef CELC_GATES_H
#define CELC_GATES_H

/** A --features list ("AdminAccess,PrioritizedList", gate names too; "none" or "": none) into
 *  *out. 0, or -1 after naming the unknown feature on stderr. */
int celc_parse_features(const char *list, unsigned *out);

/**
 * Apply --kubernetes-version (when @p version is given: *release), then --features (when
 * given: the gates that are on, instead of *out), then --feature-gates on top (kube-scheduler's
 * NAME=BOOL list, checked against *release's gates: unknown and locked ones refused with
 * Kubernetes' message). 0, or -1 after saying why on stderr.
 */
int celc_release_and_gates(const char *version, const char *features, const char *gates,
                           unsigned *release, unsigned *out);

#endif
