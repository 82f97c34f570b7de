/*
 * dirsrc.h: the --objects source of dra-extender (src/extender/dirsrc.c): files and directories
 * of Kubernetes objects (ResourceSlices, DeviceClasses, ResourceClaims, Nodes; JSON or YAML;
 * one object, a List, or a YAML stream a file), loaded at start and then watched with inotify.
 *
 * Each file is one source of the store, named by its path: when a file is written, renamed
 * into place or removed, its objects are replaced by its new content (all or nothing: a file
 * that does not load keeps its previous objects, and the error is logged and counted). Files
 * are those ending in .json, .yaml or .yml, in the directories given and their subdirectories
 * (hidden ones skipped), in name order. Changes that arrive together (an editor's save, a
 * `cp -r`) are applied together, so they reach one snapshot.
 */
#ifndef EXT_DIRSRC_H
#define EXT_DIRSRC_H

#include <stddef.h>

#include "store.h"

typedef struct dirsrc dirsrc;

/** Load @p paths (files or directories) into the store and start watching them. Errors of
 *  single files are logged, not fatal; a path that does not exist is (NULL, message in err). */
dirsrc *dirsrc_start(store *st, const char *const *paths, size_t n, char *err, size_t errcap);
void dirsrc_stop(dirsrc *d);

#endif
