/* pd-imported-session.h: one session of another agent, read from its
 * transcript: where it is, what it is about, its checklist and its plan
 * documents, and how the reading went.
 *
 * Everything here is held in memory.  Plan text and checklist text are the
 * agent's and are never written to the database (seed 001); only the
 * checklist's annotations (pd-checklist.h) may be.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-checklist.h"

G_BEGIN_DECLS

typedef enum
{
  PD_IMPORT_SOURCE_CLAUDE_CODE,
  PD_IMPORT_SOURCE_CODEX,
  PD_IMPORT_SOURCE_OPENCODE,
  PD_IMPORT_SOURCE_CLAUDE_DESKTOP,
  PD_IMPORT_SOURCE_QWEN,
  PD_IMPORT_SOURCE_GEMINI,
  PD_IMPORT_SOURCE_CLINE,
  PD_IMPORT_SOURCE_ROO,
  PD_IMPORT_SOURCE_KILO,          /* the Kilo Code extension */
  PD_IMPORT_SOURCE_KILO_CLI,      /* Kilo Code's CLI (OpenCode's storage) */
} PdImportSource;

const char *pd_import_source_to_string (PdImportSource source);

typedef enum
{
  PD_ARTIFACT_PLAN_PROPOSED,   /* no answer (yet), or the agent has none (Codex plan mode) */
  PD_ARTIFACT_PLAN_APPROVED,
  PD_ARTIFACT_PLAN_REJECTED,
} PdArtifactPlanStatus;

const char *pd_artifact_plan_status_to_string (PdArtifactPlanStatus status);

#define PD_TYPE_ARTIFACT_PLAN (pd_artifact_plan_get_type ())

/* A plan document: Claude Code's ExitPlanMode, Codex's <proposed_plan>. */
typedef struct
{
  char                 *id;        /* tool call id, or Codex turn id */
  char                 *markdown;
  PdArtifactPlanStatus  status;
  gint64                time;      /* unix µs, 0 if unknown */
} PdArtifactPlan;

GType           pd_artifact_plan_get_type (void) G_GNUC_CONST;
PdArtifactPlan *pd_artifact_plan_copy     (const PdArtifactPlan *self);
void            pd_artifact_plan_free     (PdArtifactPlan       *self);

#define PD_TYPE_IMPORTED_SESSION (pd_imported_session_get_type ())
G_DECLARE_FINAL_TYPE (PdImportedSession, pd_imported_session, PD, IMPORTED_SESSION, GObject)

PdImportedSession *pd_imported_session_new          (PdImportSource     source,
                                                     const char        *path);

PdImportSource     pd_imported_session_get_source   (PdImportedSession *self);
void               pd_imported_session_set_source   (PdImportedSession *self,
                                                     PdImportSource     source);
const char        *pd_imported_session_get_path     (PdImportedSession *self);
const char        *pd_imported_session_get_id       (PdImportedSession *self);
void               pd_imported_session_set_id       (PdImportedSession *self,
                                                     const char        *id);
const char        *pd_imported_session_get_title    (PdImportedSession *self);
void               pd_imported_session_set_title    (PdImportedSession *self,
                                                     const char        *title);
const char        *pd_imported_session_get_cwd      (PdImportedSession *self);
void               pd_imported_session_set_cwd      (PdImportedSession *self,
                                                     const char        *cwd);
gint64             pd_imported_session_get_created_at (PdImportedSession *self);
gint64             pd_imported_session_get_updated_at (PdImportedSession *self);
/* Widens [created, updated] to include @time (unix µs); 0 is ignored. */
void               pd_imported_session_note_time    (PdImportedSession *self,
                                                     gint64             time);

PdChecklist       *pd_imported_session_get_checklist (PdImportedSession *self);

/* Plan documents in transcript order. */
GPtrArray         *pd_imported_session_get_plans    (PdImportedSession *self);
/* Adds a plan document, or replaces the one with the same id (last wins). */
PdArtifactPlan    *pd_imported_session_add_plan     (PdImportedSession *self,
                                                     const char        *id,
                                                     const char        *markdown,
                                                     PdArtifactPlanStatus status,
                                                     gint64             time);
PdArtifactPlan    *pd_imported_session_find_plan    (PdImportedSession *self,
                                                     const char        *id);

/* How the reading went. */
typedef struct
{
  guint64 lines;            /* lines read */
  guint64 skipped_lines;    /* bad lines: not JSON, torn, invalid UTF-8, too long */
  guint   applied_updates;  /* plan updates that changed the checklist model */
  guint   ignored_updates;  /* plan updates refused: errors, unconfirmed, unknown shapes */
  guint64 bytes_read;       /* bytes read, in all passes (a tail read skips the middle) */
  gboolean tail_read;       /* read from the end: the middle was skipped */
} PdImportStats;

PdImportStats     *pd_imported_session_get_stats    (PdImportedSession *self);

JsonNode          *pd_imported_session_to_json      (PdImportedSession *self,
                                                     gboolean           with_plans);
void               pd_imported_session_write_json   (PdImportedSession *self,
                                                     gboolean           with_plans,
                                                     PdJsonWriter      *writer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdArtifactPlan, pd_artifact_plan_free)

G_END_DECLS
