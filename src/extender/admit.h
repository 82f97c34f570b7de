/*
 * admit.h: dra-extender's validating admission webhook (POST /validate, docs/extender.md,
 * "Lint at admission"): an admission.k8s.io/v1 AdmissionReview in, one out. The object of the
 * review (a DeviceClass, ResourceClaim or ResourceClaimTemplate; or a ConfigMap, each of whose
 * data values is a TierPolicy) is linted with libdracel's
 * lint (the rules of docs/lint.md) against the DeviceClasses of the current snapshot; an error
 * denies it (mode deny) or becomes a warning (mode warn, a dry run); warnings go back as the
 * review's `warnings`, which kubectl prints.
 *
 * Changes with: main.c (the route and the flags), docs/extender.md, deploy/webhook.yaml,
 * tests/extender/admission.sh.
 */
#ifndef EXT_ADMIT_H
#define EXT_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "dracel.h"
#include "json.h"

typedef struct admit_config {
    bool warn_only;              /* --admission-mode warn: never deny */
    const char *disable;         /* --admission-disable: lint rules switched off, or NULL */
} admit_config;

/* The limits Kubernetes puts on what a webhook returns (k8s.io/apiserver admission): a warning
 * over 256 characters may be cut, more than 4096 characters of warnings dropped. */
enum { ADMIT_WARNING_MAX = 256, ADMIT_WARNINGS_MAX = 4096, ADMIT_MESSAGE_MAX = 1024 };

/** Answer the review body[0..len) into out: 200 with the AdmissionReview; 400 (with why in
 *  err) when the body is not an admission.k8s.io/v1 AdmissionReview with a request, 500 when
 *  memory ran out. classes (may be NULL) are the DeviceClasses that exist. */
int admit_review(const admit_config *c, const dracel_objects *classes, const char *body,
                 size_t len, jbuf *out, char *err, size_t errcap);

#endif
