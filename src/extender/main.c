/*
 * dra-extender: the kube-scheduler extender (docs/extender.md). Work in progress: the server
 * is being built (issue 12); this entry point only answers --help and --version.
 */
#include <stdio.h>
#include <string.h>

#include "dracel.h"
#include "kube.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("dra-extender %s\n", dracel_version());
        return 0;
    }
    fprintf(stderr, "usage: dra-extender [--version]\n");
    return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
}
