/* pd-test-import-pages.h: what the imported pages' tests share: the
 * project's own fixtures by name, a reader's pages read, and the checks of
 * each page (the History's versions, the Transcript's messages and calls,
 * the Events, how to continue the session).  Shared by
 * test-import-pages.c (each agent's pages) and
 * test-import-pages-reads.c (the same through the API every front end
 * uses).  Header-only because the test list builds one source file per
 * test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <sqlite3.h>

#include "pd-event.h"
#include "pd-import-index.h"
#include "pd-import-test.h"
#include "pd-local-source.h"
#include "pd-plan.h"
#include "pd-session-reads.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-reader.h"

#define HARBOR  "claude-code/-home-dev-src-harbor/5b2e9f07-c3d1-4a6b-8e20-f14d9a6c0b72.jsonl"
#define LEGACY  "claude-code/-home-dev-src-inkwell/3c9d0e71-5a2b-4e8f-9d14-7b60c2a1f5e3.jsonl"
#define PLANNED "claude-code/-home-dev-src-inkwell/b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl"
#define SINCE   "codex/sessions/2026/03/14/rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e1673.jsonl"
#define NOPLAN  "codex/sessions/2026/03/16/rollout-2026-03-16T15-02-11-019cf72b-3c1c-773a-8239-ac018110b3b1.jsonl"
#define WEBHOOK "ses_3a9f1c2e0ffeQk7wTb2LxNsd4R"

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */

static inline char *
fixture_path (const char *relative)
{
  g_autofree char *root = pd_import_test_fixtures ("");

  return g_build_filename (root, relative, NULL);
}

/* The pages of one session, and the session of a plain read (the one the
 * index and the Now page use) to hold them to. */
static inline PdTranscriptPages *
read_pages (const char         *format,
            const char         *path,
            const char         *agent_id,
            PdImportedSession **plain)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format (format, path, agent_id, &error);
  g_autoptr(PdTranscriptReader) other = NULL;
  PdTranscriptPages *pages;

  g_assert_no_error (error);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pages);

  if (plain != NULL)
    {
      other = pd_transcript_reader_new_for_format (format, path, agent_id, &error);
      g_assert_true (pd_transcript_reader_update (other, NULL, &error));
      g_assert_no_error (error);
      *plain = g_object_ref (pd_transcript_reader_get_session (other));
    }
  return pages;
}

static inline PdPlanState *
version_state (GPtrArray *versions,
               guint      number)
{
  PdPlanVersionInfo *info = g_ptr_array_index (versions, number - 1);
  g_autoptr(GError) error = NULL;
  PdPlanState *state;

  g_assert_cmpint (info->version, ==, number);
  state = pd_plan_state_new_from_json (info->state_json, &error);
  g_assert_no_error (error);
  return state;
}

/* "id:status|…" of a plan state's steps. */
static inline char *
describe_state (const PdPlanState *state)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      g_string_append_printf (out, "%s%s:%s", i ? "|" : "", step->id, pd_plan_step_status_to_string (step->status));
    }
  return g_string_free (out, FALSE);
}

/* History holds one version per applied update, each version's steps are
 * the list the replay had then, and the newest is the checklist the plain
 * read ends with. */
static inline GPtrArray *
check_history (PdTranscriptPages *pages,
               PdImportedSession *plain)
{
  GPtrArray *versions = pd_transcript_pages_dup_plan_versions (pages, NULL);
  PdChecklist *checklist = pd_imported_session_get_checklist (plain);
  gint64 previous = 0;

  g_assert_cmpuint (versions->len, ==, pd_imported_session_get_stats (plain)->applied_updates);
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (pages), ==, versions->len);
  for (guint i = 0; i < versions->len; i++)
    {
      PdPlanVersionInfo *info = g_ptr_array_index (versions, i);

      /* Times of the updates, in order. */
      g_assert_cmpint (info->created_at, >, 0);
      g_assert_cmpint (info->created_at, >=, previous);
      previous = info->created_at;
    }
  if (versions->len > 0)
    {
      g_autoptr(PdPlanState) newest = version_state (versions, versions->len);

      g_assert_cmpuint (newest->steps->len, ==, pd_checklist_get_n_agent_items (checklist));
      for (guint i = 0; i < newest->steps->len; i++)
        {
          const PdPlanStep *step = g_ptr_array_index (newest->steps, i);
          g_assert_cmpstr (step->title, ==, pd_checklist_get_agent_item (checklist, i)->text);
        }
    }
  return versions;
}

typedef struct
{
  guint started;
  guint completed;
  guint failed;
  guint plan_created;
  guint plan_updated;
  guint spawned;
  guint finished_subagents;
} EventCounts;

/* The timeline: our envelope, numbered from 1, in time order. */
static inline void
count_events (PdTranscriptPages *pages,
              const char        *session_id,
              EventCounts       *counts)
{
  g_autoptr(GPtrArray) events = pd_transcript_pages_dup_events (pages, session_id, 0, 0);
  gint64 previous = 0;

  memset (counts, 0, sizeof *counts);
  g_assert_cmpuint (events->len, ==, pd_transcript_pages_get_n_events (pages));
  for (guint i = 0; i < events->len; i++)
    {
      PdStoredEvent *stored = g_ptr_array_index (events, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdEvent) event = pd_event_new_from_json (stored->event_json, &error);
      const char *type;

      g_assert_no_error (error);
      g_assert_cmpint (stored->seq, ==, i + 1);
      g_assert_cmpstr (pd_event_get_session_id (event), ==, session_id);
      g_assert_cmpint (pd_event_get_timestamp (event), >=, previous);
      previous = pd_event_get_timestamp (event);
      type = pd_event_get_event_type (event);
      if (strcmp (type, PD_EVENT_TOOL_CALL_STARTED) == 0)
        counts->started++;
      else if (strcmp (type, PD_EVENT_TOOL_CALL_COMPLETED) == 0)
        counts->completed++;
      else if (strcmp (type, PD_EVENT_TOOL_CALL_FAILED) == 0)
        counts->failed++;
      else if (strcmp (type, PD_EVENT_PLAN_CREATED) == 0)
        counts->plan_created++;
      else if (strcmp (type, PD_EVENT_PLAN_UPDATED) == 0)
        {
          /* Counts and version only: never an item's text. */
          JsonObject *data = pd_event_get_data (event);
          g_assert_true (json_object_has_member (data, "version"));
          g_assert_false (json_object_has_member (data, "title"));
          counts->plan_updated++;
        }
      else if (strcmp (type, PD_EVENT_SUBAGENT_SPAWNED) == 0)
        counts->spawned++;
      else if (strcmp (type, PD_EVENT_SUBAGENT_COMPLETED) == 0)
        counts->finished_subagents++;
    }

  /* After a sequence number: the rest, from there. */
  if (events->len > 2)
    {
      g_autoptr(GPtrArray) rest = pd_transcript_pages_dup_events (pages, session_id, events->len - 2, 0);
      g_autoptr(GPtrArray) one = pd_transcript_pages_dup_events (pages, session_id, 0, 1);

      g_assert_cmpuint (rest->len, ==, 2);
      g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (rest, 0))->seq, ==, events->len - 1);
      g_assert_cmpuint (one->len, ==, 1);
    }
}

typedef struct
{
  guint       messages;   /* all, nested ones too */
  guint       calls;
  guint       results;
  guint       nested;     /* subagent conversations under a call */
  guint       unlinked;   /* subagent conversations after the conversation */
  GHashTable *roles;      /* role → count (top level) */
} Walk;

static inline void
walk_messages (JsonArray *messages,
               Walk      *walk,
               guint      depth)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *role = pd_json_get_string (message, "role");
      JsonArray *calls = pd_json_get_array (message, "tool_calls");

      g_assert_nonnull (role);
      walk->messages++;
      if (depth == 0)
        g_hash_table_replace (walk->roles, g_strdup (role),
                              GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (walk->roles, role)) + 1));
      if (strcmp (role, "tool") == 0)
        {
          g_assert_nonnull (pd_json_get_string (message, "tool_call_id"));
          walk->results++;
        }
      for (guint j = 0; calls && j < json_array_get_length (calls); j++)
        {
          JsonObject *call = json_array_get_object_element (calls, j);
          JsonObject *subagent = pd_json_get_object (call, "subagent");

          g_assert_cmpstr (pd_json_get_string (call, "type"), ==, "function");
          g_assert_nonnull (pd_json_get_string (pd_json_get_object (call, "function"), "name"));
          g_assert_nonnull (pd_json_get_string (pd_json_get_object (call, "function"), "arguments"));
          walk->calls++;
          if (subagent != NULL)
            {
              walk->nested++;
              walk_messages (pd_json_get_array (subagent, "messages"), walk, depth + 1);
            }
        }
      if (pd_json_get_object (message, "subagent") != NULL)
        {
          walk->unlinked++;
          walk_messages (pd_json_get_array (pd_json_get_object (message, "subagent"), "messages"), walk, depth + 1);
        }
    }
}

static inline JsonArray *
check_messages (PdTranscriptPages *pages,
                Walk              *walk)
{
  JsonArray *messages = pd_transcript_pages_dup_messages (pages);

  memset (walk, 0, sizeof *walk);
  walk->roles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_assert_cmpuint (json_array_get_length (messages), ==, pd_transcript_pages_get_n_messages (pages));
  walk_messages (messages, walk, 0);
  return messages;
}

static inline guint
role_count (Walk       *walk,
            const char *role)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (walk->roles, role));
}

/* The first call named @name, at any depth. */
static inline JsonObject *
find_call (JsonArray  *messages,
           const char *name)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      JsonArray *calls = pd_json_get_array (message, "tool_calls");

      for (guint j = 0; calls && j < json_array_get_length (calls); j++)
        {
          JsonObject *call = json_array_get_object_element (calls, j);
          JsonObject *subagent = pd_json_get_object (call, "subagent");
          JsonObject *found;

          if (g_strcmp0 (pd_json_get_string (pd_json_get_object (call, "function"), "name"), name) == 0)
            return call;
          if (subagent && (found = find_call (pd_json_get_array (subagent, "messages"), name)))
            return found;
        }
    }
  return NULL;
}

static inline void
check_resume (PdTranscriptPages  *pages,
              const char * const *expected,
              const char         *workdir)
{
  g_auto(GStrv) argv = pd_transcript_pages_dup_resume_argv (pages);

  g_assert_nonnull (argv);
  g_assert_cmpstrv (argv, expected);
  g_assert_cmpstr (pd_transcript_pages_get_workdir (pages), ==, workdir);
}
