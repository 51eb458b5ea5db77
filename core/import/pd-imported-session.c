/* pd-imported-session.c: one session of another agent, read from its transcript.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include "pd-imported-session.h"

#define MAX_PLANS 200

struct _PdImportedSession
{
  GObject         parent_instance;

  PdImportSource  source;
  char           *path;
  char           *id;
  char           *title;
  char           *cwd;
  gint64          created_at;
  gint64          updated_at;
  PdChecklist    *checklist;
  GPtrArray      *plans;
  PdImportStats   stats;
};

G_DEFINE_FINAL_TYPE (PdImportedSession, pd_imported_session, G_TYPE_OBJECT)
G_DEFINE_BOXED_TYPE (PdArtifactPlan, pd_artifact_plan, pd_artifact_plan_copy, pd_artifact_plan_free)

const char *
pd_import_source_to_string (PdImportSource source)
{
  switch (source)
    {
    case PD_IMPORT_SOURCE_CLAUDE_CODE:    return "claude-code";
    case PD_IMPORT_SOURCE_CODEX:          return "codex";
    case PD_IMPORT_SOURCE_OPENCODE:       return "opencode";
    case PD_IMPORT_SOURCE_CLAUDE_DESKTOP: return "claude-desktop";
    case PD_IMPORT_SOURCE_QWEN:           return "qwen";
    case PD_IMPORT_SOURCE_GEMINI:         return "gemini";
    case PD_IMPORT_SOURCE_CLINE:          return "cline";
    case PD_IMPORT_SOURCE_ROO:            return "roo";
    case PD_IMPORT_SOURCE_KILO:           return "kilo";
    case PD_IMPORT_SOURCE_KILO_CLI:       return "kilo-cli";
    default:                              return "unknown";
    }
}

const char *
pd_artifact_plan_status_to_string (PdArtifactPlanStatus status)
{
  switch (status)
    {
    case PD_ARTIFACT_PLAN_APPROVED: return "approved";
    case PD_ARTIFACT_PLAN_REJECTED: return "rejected";
    case PD_ARTIFACT_PLAN_PROPOSED:
    default:                        return "proposed";
    }
}

PdArtifactPlan *
pd_artifact_plan_copy (const PdArtifactPlan *self)
{
  PdArtifactPlan *copy = g_memdup2 (self, sizeof *self);

  copy->id = g_strdup (self->id);
  copy->markdown = g_strdup (self->markdown);
  return copy;
}

void
pd_artifact_plan_free (PdArtifactPlan *self)
{
  if (self == NULL)
    return;
  g_free (self->id);
  g_free (self->markdown);
  g_free (self);
}

static void
pd_imported_session_finalize (GObject *object)
{
  PdImportedSession *self = PD_IMPORTED_SESSION (object);

  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_object (&self->checklist);
  g_clear_pointer (&self->plans, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_imported_session_parent_class)->finalize (object);
}

static void
pd_imported_session_class_init (PdImportedSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_imported_session_finalize;
}

static void
pd_imported_session_init (PdImportedSession *self)
{
  self->checklist = pd_checklist_new ();
  self->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_artifact_plan_free);
}

PdImportedSession *
pd_imported_session_new (PdImportSource  source,
                         const char     *path)
{
  PdImportedSession *self = g_object_new (PD_TYPE_IMPORTED_SESSION, NULL);

  self->source = source;
  self->path = g_strdup (path);
  return self;
}

PdImportSource
pd_imported_session_get_source (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), PD_IMPORT_SOURCE_CLAUDE_CODE);
  return self->source;
}

void
pd_imported_session_set_source (PdImportedSession *self,
                                PdImportSource     source)
{
  g_return_if_fail (PD_IS_IMPORTED_SESSION (self));
  self->source = source;
}

const char *
pd_imported_session_get_path (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  return self->path;
}

#define STRING_ACCESSORS(field)                                               \
const char *                                                                  \
pd_imported_session_get_##field (PdImportedSession *self)                     \
{                                                                             \
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);                 \
  return self->field;                                                         \
}                                                                             \
void                                                                          \
pd_imported_session_set_##field (PdImportedSession *self,                     \
                                 const char        *value)                    \
{                                                                             \
  g_return_if_fail (PD_IS_IMPORTED_SESSION (self));                           \
  if (value != NULL && !g_utf8_validate (value, -1, NULL))                    \
    return;                                                                   \
  g_free (self->field);                                                       \
  self->field = g_strdup (value);                                             \
}

STRING_ACCESSORS (id)
STRING_ACCESSORS (title)
STRING_ACCESSORS (cwd)

#undef STRING_ACCESSORS

gint64
pd_imported_session_get_created_at (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), 0);
  return self->created_at;
}

gint64
pd_imported_session_get_updated_at (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), 0);
  return self->updated_at;
}

void
pd_imported_session_note_time (PdImportedSession *self,
                               gint64             time)
{
  g_return_if_fail (PD_IS_IMPORTED_SESSION (self));
  if (time <= 0)
    return;
  if (self->created_at == 0 || time < self->created_at)
    self->created_at = time;
  if (time > self->updated_at)
    self->updated_at = time;
}

PdChecklist *
pd_imported_session_get_checklist (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  return self->checklist;
}

GPtrArray *
pd_imported_session_get_plans (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  return self->plans;
}

PdArtifactPlan *
pd_imported_session_find_plan (PdImportedSession *self,
                               const char        *id)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  for (guint i = 0; id != NULL && i < self->plans->len; i++)
    {
      PdArtifactPlan *plan = g_ptr_array_index (self->plans, i);
      if (g_strcmp0 (plan->id, id) == 0)
        return plan;
    }
  return NULL;
}

PdArtifactPlan *
pd_imported_session_add_plan (PdImportedSession    *self,
                              const char           *id,
                              const char           *markdown,
                              PdArtifactPlanStatus  status,
                              gint64                time)
{
  PdArtifactPlan *plan;

  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  g_return_val_if_fail (markdown != NULL, NULL);

  if ((plan = pd_imported_session_find_plan (self, id)))
    {
      g_free (plan->markdown);
      plan->markdown = g_strdup (markdown);
      plan->status = status;
      plan->time = time;
      return plan;
    }

  if (self->plans->len >= MAX_PLANS)
    g_ptr_array_remove_index (self->plans, 0);
  plan = g_new0 (PdArtifactPlan, 1);
  plan->id = g_strdup (id);
  plan->markdown = g_strdup (markdown);
  plan->status = status;
  plan->time = time;
  g_ptr_array_add (self->plans, plan);
  return plan;
}

PdImportStats *
pd_imported_session_get_stats (PdImportedSession *self)
{
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);
  return &self->stats;
}

/* @usec as "%Y-%m-%dT%H:%M:%S.%fZ" in @text, or FALSE for none. */
static gboolean
format_time (gint64  usec,
             char   *text,
             gsize   size)
{
  g_autoptr(GDateTime) seconds = NULL;
  gint year, month, day;

  if (usec <= 0 || !(seconds = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC)))
    return FALSE;
  /* What g_date_time_format() writes for "%Y-%m-%dT%H:%M:%S.%fZ", without
   * its parsing of the format (most of an import's printing, for the two
   * times of each session). */
  g_date_time_get_ymd (seconds, &year, &month, &day);
  g_snprintf (text, size, "%d-%02d-%02dT%02d:%02d:%02d.%06dZ", year, month, day,
              g_date_time_get_hour (seconds), g_date_time_get_minute (seconds), g_date_time_get_second (seconds),
              (int) (usec % G_USEC_PER_SEC));
  return TRUE;
}

static void
set_time_member (JsonObject *object,
                 const char *name,
                 gint64      usec)
{
  char text[64];

  if (format_time (usec, text, sizeof text))
    json_object_set_string_member (object, name, text);
  else
    json_object_set_null_member (object, name);
}

static void
write_time (PdJsonWriter *writer,
            const char   *name,
            gint64        usec)
{
  char text[64];

  pd_json_writer_string (writer, name, format_time (usec, text, sizeof text) ? text : NULL);
}

/**
 * pd_imported_session_to_json:
 * @with_plans: include the plan documents' markdown
 *
 * For `plandeck-agent import --json` and the UI: agent text included, so
 * never store what this returns.
 */
JsonNode *
pd_imported_session_to_json (PdImportedSession *self,
                             gboolean           with_plans)
{
  JsonObject *root = json_object_new ();
  JsonObject *stats = json_object_new ();
  JsonArray *plans = json_array_new ();
  JsonNode *node;

  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (self), NULL);

  json_object_set_string_member (root, "source", pd_import_source_to_string (self->source));
  json_object_set_string_member (root, "path", self->path ? self->path : "");
  json_object_set_string_member (root, "id", self->id ? self->id : "");
  json_object_set_string_member (root, "title", self->title ? self->title : "");
  json_object_set_string_member (root, "cwd", self->cwd ? self->cwd : "");
  set_time_member (root, "created_at", self->created_at);
  set_time_member (root, "updated_at", self->updated_at);
  json_object_set_member (root, "checklist", pd_checklist_to_json (self->checklist));

  for (guint i = 0; i < self->plans->len; i++)
    {
      const PdArtifactPlan *plan = g_ptr_array_index (self->plans, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "id", plan->id ? plan->id : "");
      json_object_set_string_member (object, "status", pd_artifact_plan_status_to_string (plan->status));
      set_time_member (object, "time", plan->time);
      if (with_plans)
        json_object_set_string_member (object, "markdown", plan->markdown);
      json_array_add_object_element (plans, object);
    }
  json_object_set_array_member (root, "plans", plans);

  json_object_set_int_member (stats, "lines", (gint64) self->stats.lines);
  json_object_set_int_member (stats, "skipped_lines", (gint64) self->stats.skipped_lines);
  json_object_set_int_member (stats, "applied_updates", self->stats.applied_updates);
  json_object_set_int_member (stats, "ignored_updates", self->stats.ignored_updates);
  json_object_set_object_member (root, "stats", stats);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

/**
 * pd_imported_session_write_json:
 * @with_plans: include the plan documents' markdown
 *
 * Writes what pd_imported_session_to_json() makes, the same bytes, as an
 * element of the array @writer is in, with no tree: `import --json` prints
 * thousands of sessions.
 */
void
pd_imported_session_write_json (PdImportedSession *self,
                                gboolean           with_plans,
                                PdJsonWriter      *writer)
{
  g_return_if_fail (PD_IS_IMPORTED_SESSION (self));

  pd_json_writer_begin_object (writer, NULL);
  pd_json_writer_string (writer, "source", pd_import_source_to_string (self->source));
  pd_json_writer_string (writer, "path", self->path ? self->path : "");
  pd_json_writer_string (writer, "id", self->id ? self->id : "");
  pd_json_writer_string (writer, "title", self->title ? self->title : "");
  pd_json_writer_string (writer, "cwd", self->cwd ? self->cwd : "");
  write_time (writer, "created_at", self->created_at);
  write_time (writer, "updated_at", self->updated_at);
  pd_checklist_write_json (self->checklist, writer, "checklist");

  pd_json_writer_begin_array (writer, "plans");
  for (guint i = 0; i < self->plans->len; i++)
    {
      const PdArtifactPlan *plan = g_ptr_array_index (self->plans, i);

      pd_json_writer_begin_object (writer, NULL);
      pd_json_writer_string (writer, "id", plan->id ? plan->id : "");
      pd_json_writer_string (writer, "status", pd_artifact_plan_status_to_string (plan->status));
      write_time (writer, "time", plan->time);
      if (with_plans)
        pd_json_writer_string (writer, "markdown", plan->markdown);
      pd_json_writer_end_object (writer);
    }
  pd_json_writer_end_array (writer);

  pd_json_writer_begin_object (writer, "stats");
  pd_json_writer_int (writer, "lines", (gint64) self->stats.lines);
  pd_json_writer_int (writer, "skipped_lines", (gint64) self->stats.skipped_lines);
  pd_json_writer_int (writer, "applied_updates", self->stats.applied_updates);
  pd_json_writer_int (writer, "ignored_updates", self->stats.ignored_updates);
  pd_json_writer_end_object (writer);
  pd_json_writer_end_object (writer);
}
