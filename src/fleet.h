/*
 * fleet.h: a fleet kept up to date slice by slice (as a watch delivers ResourceSlices), from
 * which immutable table snapshots are derived.
 *
 * The fleet holds the decoded slices (src/slices.h records) of every ResourceSlice it was
 * given, keyed by metadata.name (the object's identity: ResourceSlices are cluster-scoped),
 * and one string dictionary that all its snapshots share (append-only: a snapshot never sees ids
 * it did not create or inherit). Adding or replacing slices decodes only them. It also notes
 * the pools they change (driver, pool name) since the last snapshot: a snapshot given the
 * previous one (the base) copies the unchanged pools from it and builds only those
 * (src/table_patch.c); the first one, or one after a change too large to patch, is built from
 * all the records. Snapshots are ordinary tables: immutable, read without locks, and they may
 * outlive the fleet.
 *
 * One writer: the functions that change the fleet or take a snapshot must not run at the same
 * time (the extender serialises watch events); readers of earlier snapshots are never blocked.
 *
 * Change with: src/fleet.c, src/api_table.c (dracel_fleet_*), tests/unit/test_fleet.c,
 * docs/columnar.md.
 */
#ifndef DC_FLEET_H
#define DC_FLEET_H

#include "slices.h"
#include "table.h"
#include "tablebuild.h"

typedef struct dc_fleet dc_fleet;

dc_fleet *dc_fleet_new(const dracel_alloc *a);
void dc_fleet_free(dc_fleet *f);

/**
 * Take over @p set (freed by the fleet when none of its slices and rules is left): each of its
 * slices replaces the slice of the same metadata.name, or is added, and so does each of its
 * DeviceTaintRules (the set read with keep_rules) among the rules. A slice or rule without a
 * name is keyed by its file and line. On ENOMEM the fleet is unchanged and @p set is freed.
 */
dracel_status dc_fleet_apply(dc_fleet *f, dc_slice_set *set) DC_WUR;
/** Remove the slice named @p name (an unnamed slice's key is "FILE:LINE"). DRACEL_EINPUT when
 *  there is none; DRACEL_ENOMEM (the fleet unchanged) when noting its pool runs out of memory. */
dracel_status dc_fleet_delete(dc_fleet *f, const char *name) DC_WUR;
/** Remove the DeviceTaintRule named @p name (unnamed: "FILE:LINE"); DRACEL_EINPUT when none.
 *  Never fails otherwise (the next snapshot is built in full). */
dracel_status dc_fleet_delete_rule(dc_fleet *f, const char *name) DC_WUR;
/** The number of slices held. */
uint32_t dc_fleet_slices(const dc_fleet *f);
/** The number of DeviceTaintRules held. */
uint32_t dc_fleet_rules(const dc_fleet *f);
/** Build a snapshot of the current slices (sharing the fleet's dictionary): from @p base (the
 *  last snapshot dc_fleet_snapshot_done was called for, or NULL) when the pools changed since
 *  are few enough (then (*out)->patched, and @p delta says how it was made), else from all the
 *  records (delta->nsegs 0). */
dracel_status dc_fleet_snapshot(dc_fleet *f, const dc_table *base, const dracel_alloc *a,
                                dc_table **out, dc_patch_delta *delta, char *err,
                                size_t errcap) DC_WUR;
/** The snapshot just built is the base of the next one: forget the changes it includes. */
void dc_fleet_snapshot_done(dc_fleet *f);

#endif
