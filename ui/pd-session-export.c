/* pd-session-export.c: a session written out as Markdown or JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Export reads an endpoint's session through the window's PdSource: the
 * session, its transcript and its plan versions, then writes one file; a
 * session of this computer's database is written as it is read
 * (pd-session-export-stream.c).  JSON has the shape of
 * `plandeck-agent sessions export`; Markdown is for people: the facts, the
 * newest plan as a checklist, then the conversation.  Model text goes in
 * as text: in Markdown, each message body sits in a fence long enough
 * that nothing inside can close it.
 */
#define G_LOG_DOMAIN "pd-session-export"

#include "config.h"

#include "pd-json.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "pd-event-item.h"
#include "pd-json-util.h"
#include "pd-plan-row-item.h"
#include "pd-plan-state.h"
#include "pd-safe-text.h"
#include "pd-session-export-private.h"
#include "pd-session-state-private.h"
#include "pd-transcript-pages.h"
#include "pd-ui-util-private.h"


/* --- exports going on ------------------------------------------------- */

/* Each export going on, by its session's id (its own source's: an id
 * among several sources is "source/id") → how many,
 * and who waits for a session's to end (a deletion).  Any thread: an
 * export ends where its task goes; the waiters run on the main context. */
typedef struct
{
  char        *key;
  GSourceFunc  func;
  gpointer     data;
} Waiter;

G_LOCK_DEFINE_STATIC (running);
static GHashTable *running;
static GSList *waiters;

static char *
running_key (PdSource   *source,
             const char *session_id)
{
  const char *slash = session_id != NULL ? strrchr (session_id, '/') : NULL;

  return g_strdup (slash != NULL ? slash + 1 : session_id != NULL ? session_id : "");
}

static void
running_begin (const char *key)
{
  G_LOCK (running);
  if (running == NULL)
    running = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert (running, g_strdup (key),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (running, key)) + 1));
  G_UNLOCK (running);
}

static void
running_end (const char *key)
{
  GSList *ready = NULL;
  guint n;

  G_LOCK (running);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (running, key));
  if (n > 1)
    g_hash_table_insert (running, g_strdup (key), GUINT_TO_POINTER (n - 1));
  else
    {
      g_hash_table_remove (running, key);
      for (GSList *l = waiters; l != NULL;)
        {
          Waiter *waiter = l->data;
          GSList *next = l->next;

          if (g_str_equal (waiter->key, key))
            {
              waiters = g_slist_delete_link (waiters, l);
              ready = g_slist_prepend (ready, waiter);
            }
          l = next;
        }
    }
  G_UNLOCK (running);

  for (GSList *l = ready; l != NULL; l = l->next)
    {
      Waiter *waiter = l->data;

      g_idle_add (waiter->func, waiter->data);
      g_free (waiter->key);
      g_free (waiter);
    }
  g_slist_free (ready);
}

/**
 * pd_session_export_when_done:
 * @func: called once on the main context when the exports of @session_id
 *   of @source going on now have ended
 *
 * Returns: %TRUE when @func waits for an export; %FALSE when none goes
 *   on (@func is not called)
 */
gboolean
pd_session_export_when_done (PdSource    *source,
                             const char  *session_id,
                             GSourceFunc  func,
                             gpointer     data)
{
  g_autofree char *key = running_key (source, session_id);
  gboolean waits;

  G_LOCK (running);
  waits = running != NULL && g_hash_table_contains (running, key);
  if (waits)
    {
      Waiter *waiter = g_new0 (Waiter, 1);

      waiter->key = g_steal_pointer (&key);
      waiter->func = func;
      waiter->data = data;
      waiters = g_slist_prepend (waiters, waiter);
    }
  G_UNLOCK (running);
  return waits;
}

static void
export_data_free (ExportData *data)
{
  if (data->source != NULL)
    {
      g_autofree char *key = running_key (data->source, data->session_id);

      running_end (key);
    }
  g_clear_object (&data->source);
  g_free (data->session_id);
  g_clear_object (&data->file);
  g_clear_pointer (&data->info, pd_session_info_free);
  g_clear_pointer (&data->messages, json_array_unref);
  g_clear_pointer (&data->versions, g_ptr_array_unref);
  g_clear_pointer (&data->events, g_ptr_array_unref);
  g_clear_object (&data->local);
  g_free (data->local_id);
  g_free (data->checklist_json);
  g_free (data);
}

/* --- the formats ------------------------------------------------------- */

/* A message's text: a string, or the text of its parts. */
static char *
message_text (JsonObject *message)
{
  JsonNode *content = json_object_get_member (message, "content");
  char *text = pd_json_content_text (content, "\n\n");

  return text != NULL ? text : json_to_string (content, TRUE);
}

/* Characters a reader or a terminal must see as what they are: controls
 * (C0 but for line breaks and tabs, DEL, C1 with ESC among them, line and
 * paragraph separators) and invisible format characters such as bidi
 * overrides (pd_safe_text_is_invisible()). */
static gboolean
needs_visible_escape (gunichar c)
{
  if (c == '\n' || c == '\t')
    return FALSE;
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 ||
         pd_safe_text_is_invisible (c);
}

/* Appends @text with each such character as "<U+202E>" (the CLI's form),
 * invalid UTF-8 as U+FFFD; with @inline_text, also as Markdown inline text:
 * HTML specials as entities, Markdown specials backslash-escaped, line
 * breaks as spaces.  "<U+" starts no HTML tag, so the escapes stay text. */
static void
append_safe (GString    *out,
             const char *text,
             gboolean    inline_text)
{
  const char *end;

  if (text == NULL)
    return;
  end = text + strlen (text);
  for (const char *p = text; p < end; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_unichar (out, 0xFFFD);
          p++;
          continue;
        }
      if (c == '\r' && p + 1 < end && p[1] == '\n')
        ;  /* "\r\n" is one line break */
      else if (inline_text && (c == '\n' || c == '\t'))
        g_string_append_c (out, ' ');
      else if (needs_visible_escape (c))
        g_string_append_printf (out, "<U+%04X>", c);
      else if (inline_text && c == '<')
        g_string_append (out, "&lt;");
      else if (inline_text && c == '>')
        g_string_append (out, "&gt;");
      else if (inline_text && c == '&')
        g_string_append (out, "&amp;");
      else if (inline_text && c < 0x80 && strchr ("\\`*_[]()#!|~{}", (char) c) != NULL)
        g_string_append_printf (out, "\\%c", (char) c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
}

char *
_pd_session_export_inline_text (const char *text)
{
  GString *out = g_string_new (NULL);

  append_safe (out, text, TRUE);
  return g_string_free (out, FALSE);
}

static char *
fenced_text (const char *text)
{
  GString *out = g_string_new (NULL);

  append_safe (out, text, FALSE);
  return g_string_free (out, FALSE);
}

/* A fence of backticks longer than any run of them in @text. */
static char *
fence_for (const char *text)
{
  guint longest = 0;
  guint run = 0;

  for (const char *p = text; *p; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  return g_strnfill (MAX (3, longest + 1), '`');
}

static void
append_fenced (GString    *out,
               const char *raw,
               const char *language)
{
  g_autofree char *text = fenced_text (raw);
  g_autofree char *fence = fence_for (text);

  g_string_append_printf (out, "%s%s\n%s%s%s\n\n", fence, language ? language : "", text,
                          g_str_has_suffix (text, "\n") || *text == '\0' ? "" : "\n", fence);
}

/* A code span: a backtick run longer than any inside, spaced off when
 * the text begins or ends with a backtick. */
static void
append_code_span (GString    *out,
                  const char *raw)
{
  g_autoptr(GString) safe = g_string_new (NULL);
  g_autofree char *ticks = NULL;
  guint longest = 0, run = 0;
  const char *pad;

  append_safe (safe, raw, FALSE);
  g_strdelimit (safe->str, "\n\t", ' ');
  for (const char *p = safe->str; *p; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  ticks = g_strnfill (longest + 1, '`');
  pad = safe->len > 0 && (safe->str[0] == '`' || safe->str[safe->len - 1] == '`') ? " " : "";
  g_string_append_printf (out, "%s%s%s%s%s", ticks, pad, safe->str, pad, ticks);
}

static const char *
role_heading (const char *role)
{
  if (g_strcmp0 (role, "user") == 0)
    return _("User");
  if (g_strcmp0 (role, "assistant") == 0)
    return _("Assistant");
  if (g_strcmp0 (role, "tool") == 0)
    return _("Tool Result");
  if (g_strcmp0 (role, "system") == 0 || g_strcmp0 (role, "developer") == 0)
    return _("System Prompt");
  return role;
}

/* A step's acceptance checks, one item each under the step, as the JSON
 * has them: the check, its state in the app's words, the tool and
 * arguments that satisfy it, and its evidence (the call whose result
 * counted), all inline text (the Markdown dropped them). */
static void
append_checks (GString          *out,
               const PdPlanStep *step)
{
  for (guint i = 0; i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);
      g_autofree char *id = _pd_session_export_inline_text (check->id);
      g_autofree char *what = _pd_session_export_inline_text (check->description != NULL && check->description[0] != '\0'
                                           ? check->description : check->id);
      g_autofree char *state = _pd_session_export_inline_text (pd_plan_check_status_label (check->status));
      g_autofree char *tool = _pd_session_export_inline_text (check->tool != NULL ? check->tool : "");
      g_autofree char *arguments = _pd_session_export_inline_text (check->arguments != NULL ? check->arguments : "{}");

      /* Translators: an acceptance check in the Markdown export: its id,
       * description and state ("Check tests: export tests pass (Failed)") */
      g_string_append_printf (out, "  - %s", _("Check"));
      g_string_append_printf (out, " %s: %s (%s)", id, what, state);
      /* Translators: in the Markdown export, then a tool's name and its arguments */
      g_string_append_printf (out, " — %s %s, %s %s", _("tool"), tool, _("arguments"), arguments);
      if (check->call_id != NULL && check->call_id[0] != '\0')
        {
          g_autofree char *call = _pd_session_export_inline_text (check->call_id);

          /* Translators: in the Markdown export, then the id of a tool call */
          g_string_append_printf (out, ", %s %s", _("evidence from the call"), call);
        }
      else
        {
          g_string_append_printf (out, ", %s", _("no evidence yet"));
        }
      g_string_append_c (out, '\n');
    }
}

static const char *
step_box (PdPlanStepStatus status)
{
  return status == PD_PLAN_STEP_DONE ? "[x]" : "[ ]";
}

/* The ids of the steps an imported agent cancelled and the user did not
 * tick or untick: the transcript pages write them "blocked", with the
 * agent's own "cancelled" beside (as the History reads them). */
static GHashTable *
cancelled_steps (const char *state_json)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  GHashTable *cancelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonNode *root;
  JsonNode *steps;

  if (state_json == NULL || pd_json_nesting_exceeds (state_json, -1, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, state_json, -1, NULL))
    return cancelled;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return cancelled;
  steps = json_object_get_member (json_node_get_object (root), "steps");
  if (steps == NULL || !JSON_NODE_HOLDS_ARRAY (steps))
    return cancelled;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (steps)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (steps), i);
      JsonObject *step = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *id = step ? pd_json_get_string (step, "id") : NULL;

      if (id != NULL && !json_object_has_member (step, "user_checked") &&
          g_strcmp0 (pd_json_get_string (step, "agent_status"), "cancelled") == 0)
        g_hash_table_add (cancelled, g_strdup (id));
    }
  return cancelled;
}

void
_pd_session_export_markdown_head (GString                 *out,
                                  const PdSessionInfo     *info,
                                  const PdPlanVersionInfo *newest,
                                  const char              *checklist_json)
{
  g_autofree char *title = _pd_session_export_inline_text (info->name && *info->name ? info->name : info->task);
  g_autofree char *source = _pd_session_export_inline_text (info->source);
  g_autofree char *created = pd_session_time_to_string (info->created_at);
  g_autofree char *updated = pd_session_time_to_string (info->updated_at);

  g_string_append_printf (out, "# %s\n\n", *title ? title : _("Untitled session"));
  g_string_append_printf (out, "- %s: ", _("Session"));
  append_code_span (out, info->id);
  g_string_append_printf (out, "\n- %s: %s\n", _("Source"), source);
  if (info->model && *info->model)
    {
      g_autofree char *model = _pd_session_export_inline_text (info->model);
      g_autofree char *provider = _pd_session_export_inline_text (info->provider);

      g_string_append_printf (out, "- %s: %s (%s)\n", _("Model"), model, provider);
    }
  if (info->cwd && *info->cwd)
    {
      g_string_append_printf (out, "- %s: ", _("Folder"));
      append_code_span (out, info->cwd);
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "- %s: %s\n", _("Started"), created ? created : "");
  g_string_append_printf (out, "- %s: %s\n", _("Last change"), updated ? updated : "");
  /* Statuses in the app's words, not the database's ("in_progress"). */
  g_string_append_printf (out, "- %s: %s\n\n", _("Status"), _pd_session_state_label (info, g_get_real_time ()));

  if (info->task && *info->task)
    {
      g_string_append_printf (out, "## %s\n\n", _("Task"));
      append_fenced (out, info->task, "text");
    }

  /* Another agent's list as the user sees it, the user's marks said. */
  if (checklist_json != NULL)
    _pd_session_export_markdown_checklist (out, checklist_json, newest != NULL ? newest->version : 0);
  else if (newest != NULL)
    {
      g_autoptr(PdPlanState) plan = pd_plan_state_new_from_json (newest->state_json, NULL);
      g_autoptr(GHashTable) cancelled = cancelled_steps (newest->state_json);

      if (plan != NULL)
        {
          g_string_append_printf (out, "## %s %" G_GINT64_FORMAT "\n\n", _("Plan, version"), plan->version);
          for (guint i = 0; i < plan->steps->len; i++)
            {
              const PdPlanStep *step = g_ptr_array_index (plan->steps, i);
              g_autofree char *step_title = _pd_session_export_inline_text (step->title);
              g_autofree char *status = _pd_session_export_inline_text (g_hash_table_contains (cancelled, step->id)
                                                     ? _("Cancelled") : pd_plan_step_status_label (step->status));

              g_string_append_printf (out, "- %s %s (%s)", step_box (step->status), step_title, status);
              if (step->note && *step->note)
                {
                  g_autofree char *note = _pd_session_export_inline_text (step->note);

                  g_string_append_printf (out, " — %s", note);
                }
              g_string_append_c (out, '\n');
              append_checks (out, step);
            }
          g_string_append_c (out, '\n');
        }
    }

  g_string_append_printf (out, "## %s\n\n", _("Transcript"));
}

void
_pd_session_export_markdown_message (GString    *out,
                                     JsonObject *message)
{
  JsonNode *calls;
  g_autofree char *text = NULL;
  g_autofree char *heading = NULL;
  const char *role;

  role = pd_json_get_string (message, "role");
  text = message_text (message);

  heading = _pd_session_export_inline_text (role_heading (role ? role : "?"));
  g_string_append_printf (out, "### %s\n\n", heading);
  if (*text != '\0')
    append_fenced (out, text, "");

  calls = json_object_get_member (message, "tool_calls");
  if (calls != NULL && JSON_NODE_HOLDS_ARRAY (calls))
    for (guint j = 0; j < json_array_get_length (json_node_get_array (calls)); j++)
      {
        JsonNode *call = json_array_get_element (json_node_get_array (calls), j);
        JsonNode *function = JSON_NODE_HOLDS_OBJECT (call)
          ? json_object_get_member (json_node_get_object (call), "function") : NULL;
        JsonObject *fn = function && JSON_NODE_HOLDS_OBJECT (function) ? json_node_get_object (function) : NULL;
        const char *name = pd_json_get_string (fn, "name");
        const char *arguments = pd_json_get_string (fn, "arguments");

        /* Translators: %s is the name of a tool the model called */
        g_string_append_printf (out, "%s ", _("Tool call:"));
        append_code_span (out, name ? name : "?");
        g_string_append (out, "\n\n");
        if (arguments != NULL)
          append_fenced (out, arguments, "json");
      }
}

void
_pd_session_export_markdown_event (GString             *out,
                                   const PdStoredEvent *event,
                                   gboolean             first)
{
  g_autoptr(PdEventItem) item = pd_event_item_new (event->seq, event->event_json);
  g_autofree char *type = _pd_session_export_inline_text (pd_event_item_get_event_type (item));
  g_autofree char *summary = _pd_session_export_inline_text (pd_event_item_get_summary (item));
  const char *tool = pd_event_item_get_tool (item);

  /* The timeline, a line an event: what the Events page lists. */
  if (first)
    g_string_append_printf (out, "## %s\n\n", _("Events"));
  g_string_append (out, "- ");
  append_code_span (out, pd_event_item_get_time_text (item));
  g_string_append_printf (out, " %s", type);
  if (tool != NULL && *tool != '\0')
    {
      g_string_append_c (out, ' ');
      append_code_span (out, tool);
    }
  if (*summary != '\0')
    g_string_append_printf (out, " — %s", summary);
  g_string_append_c (out, '\n');
}

/**
 * pd_session_export_markdown:
 * @messages: the transcript
 * @versions: (element-type PdPlanVersionInfo): the plan versions, oldest first
 *
 * Returns: (transfer full): the session as a Markdown document
 */
char *
pd_session_export_markdown (const PdSessionInfo *info,
                            JsonArray           *messages,
                            GPtrArray           *versions,
                            GPtrArray           *events)
{
  GString *out = g_string_new (NULL);

  _pd_session_export_markdown_head (out, info, versions != NULL && versions->len > 0
                                               ? g_ptr_array_index (versions, versions->len - 1) : NULL, NULL);
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        _pd_session_export_markdown_message (out, json_node_get_object (node));
    }
  for (guint i = 0; events != NULL && i < events->len; i++)
    _pd_session_export_markdown_event (out, g_ptr_array_index (events, i), i == 0);
  return g_string_free (out, FALSE);
}

/**
 * pd_session_export_json:
 *
 * Returns: (transfer full): the session as the JSON `plandeck-agent
 *   sessions export` writes: its facts, "messages" and "plan_versions"
 */
char *
pd_session_export_json (const PdSessionInfo *info,
                        JsonArray           *messages,
                        GPtrArray           *versions,
                        GPtrArray           *events)
{
  JsonObject *object = pd_session_info_to_json (info, FALSE);
  JsonArray *history = json_array_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_object_set_array_member (object, "messages", messages ? json_array_ref (messages) : json_array_new ());
  for (guint i = 0; versions != NULL && i < versions->len; i++)
    {
      const PdPlanVersionInfo *version = g_ptr_array_index (versions, i);
      JsonObject *entry = json_object_new ();
      g_autofree char *stamp = pd_session_time_to_string (version->created_at);
      JsonNode *state = pd_json_from_string_bounded (version->state_json, NULL);

      /* As `sessions export` writes it: an imported agent's cancelled item
       * says so. */
      pd_transcript_pages_state_show_cancelled (state);
      json_object_set_int_member (entry, "version", version->version);
      json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
      json_object_set_member (entry, "state", state ? state : json_node_new (JSON_NODE_NULL));
      json_array_add_object_element (history, entry);
    }
  json_object_set_array_member (object, "plan_versions", history);
  /* As `sessions export` writes them: each event's envelope. */
  {
    JsonArray *timeline = json_array_new ();

    for (guint i = 0; events != NULL && i < events->len; i++)
      {
        JsonNode *event = json_from_string (((PdStoredEvent *) g_ptr_array_index (events, i))->event_json, NULL);

        if (event != NULL)
          json_array_add_element (timeline, event);
      }
    json_object_set_array_member (object, "events", timeline);
  }

  json_node_take_object (root, object);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, NULL);
}

/* --- reading and writing ------------------------------------------------ */

/* In a worker thread: a transcript may hold a hundred megabytes of tool
 * output, and building its text must not stall the window.  The target is
 * looked at first: opening a FIFO would block until someone reads it, and a
 * device or folder is no place for an export.  A new file is the user's
 * alone (0600); a file written over keeps its mode. */
gboolean
_pd_session_export_check_target (GFile     *file,
                                 gboolean  *existed,
                                 guint     *mode,
                                 GError   **error)
{
  const char *path = g_file_peek_path (file);
  GStatBuf st;

  *existed = FALSE;
  if (path != NULL && g_stat (path, &st) == 0)
    {
      if (!S_ISREG (st.st_mode))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                               _("It is not a regular file (a pipe, a device or a folder); choose a file"));
          return FALSE;
        }
      *existed = TRUE;
      *mode = st.st_mode & 07777;
    }
  return TRUE;
}

static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportData *data = task_data;
  const char *path = g_file_peek_path (data->file);
  g_autofree char *contents = NULL;
  GError *error = NULL;
  gboolean existed = FALSE;
  guint mode = 0;

  if (!_pd_session_export_check_target (data->file, &existed, &mode, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  contents = data->format == PD_SESSION_EXPORT_JSON
    ? pd_session_export_json (data->info, data->messages, data->versions, data->events)
    : pd_session_export_markdown (data->info, data->messages, data->versions, data->events);
  if (!g_file_replace_contents (data->file, contents, strlen (contents), NULL, FALSE,
                                G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION,
                                NULL, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (existed && g_chmod (path, (int) mode) != 0)
    g_debug ("Could not keep the mode of %s: %s", path, g_strerror (errno));
  g_task_return_boolean (task, TRUE);
}

/* An endpoint's events are read a page at a time. */
#define EVENTS_PAGE 500

static void
on_events (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExportData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) page = NULL;
  GError *error = NULL;

  page = pd_source_get_events_finish (PD_SOURCE (object), result, &error);
  if (page == NULL)
    {
      /* An endpoint that gives no events: the rest is written. */
      if (!g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED) &&
          !g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
        {
          g_task_return_error (task, error);
          return;
        }
      g_clear_error (&error);
    }
  for (guint i = 0; page != NULL && i < page->len; i++)
    g_ptr_array_add (data->events, pd_stored_event_copy (g_ptr_array_index (page, i)));
  if (page != NULL && page->len == EVENTS_PAGE)
    {
      const PdStoredEvent *last = g_ptr_array_index (page, page->len - 1);

      pd_source_get_events_async (data->source, data->session_id, last->seq, EVENTS_PAGE,
                                  g_task_get_cancellable (task), on_events, g_object_ref (task));
      return;
    }
  g_task_run_in_thread (task, export_thread);
}

static void
on_history (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExportData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) versions = NULL;
  GError *error = NULL;

  versions = pd_source_get_plan_history_finish (PD_SOURCE (object), result, &error);
  if (versions == NULL)
    {
      /* A session without a plan has no history to give; the rest is written. */
      if (!g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND) &&
          !g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED))
        {
          g_task_return_error (task, error);
          return;
        }
      g_clear_error (&error);
    }

  data->versions = g_steal_pointer (&versions);
  if (data->local != NULL)
    {
      g_task_run_in_thread (task, _pd_session_export_stream_thread);
      return;
    }
  data->events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  pd_source_get_events_async (data->source, data->session_id, 0, EVENTS_PAGE, g_task_get_cancellable (task),
                              on_events, g_object_ref (task));
}

static void
on_messages (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExportData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->messages = pd_source_get_messages_finish (PD_SOURCE (object), result, &error);
  if (data->messages == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  pd_source_get_plan_history_async (data->source, data->session_id, g_task_get_cancellable (task),
                                    on_history, g_object_ref (task));
}

static void
on_session (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExportData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->info = pd_source_get_session_finish (PD_SOURCE (object), result, &error);
  if (data->info == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Written as read: the JSON whole there, the Markdown's messages. */
  if (data->local != NULL && data->format == PD_SESSION_EXPORT_JSON)
    {
      g_task_run_in_thread (task, _pd_session_export_stream_thread);
      return;
    }
  if (data->local != NULL)
    {
      pd_source_get_plan_history_async (data->source, data->session_id, g_task_get_cancellable (task),
                                        on_history, g_object_ref (task));
      return;
    }
  pd_source_get_messages_async (data->source, data->session_id, g_task_get_cancellable (task),
                                on_messages, g_object_ref (task));
}

/**
 * pd_session_export_async:
 * @file: where to write; replaced whole, or left as it was on an error
 *
 * Reads @session_id through @source and writes it to @file.
 */
void
pd_session_export_async (PdSource              *source,
                         const char            *session_id,
                         PdSessionExportFormat  format,
                         GFile                 *file,
                         GCancellable          *cancellable,
                         GAsyncReadyCallback    callback,
                         gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  ExportData *data = g_new0 (ExportData, 1);

  g_return_if_fail (PD_IS_SOURCE (source));
  g_return_if_fail (G_IS_FILE (file));

  data->source = g_object_ref (source);
  data->session_id = g_strdup (session_id);
  data->format = format;
  data->file = g_object_ref (file);
  /* A deletion of the session waits for it (pd_session_export_when_done()). */
  {
    g_autofree char *key = running_key (source, session_id);

    running_begin (key);
  }
  g_task_set_task_data (task, data, (GDestroyNotify) export_data_free);
  g_task_set_source_tag (task, pd_session_export_async);

  /* A session of this computer's database is written as it is read: a
   * long imported transcript was read whole, then its text built whole. */
  data->local = _pd_session_export_local_source (source, session_id, &data->local_id);

  pd_source_get_session_async (source, session_id, cancellable, on_session, g_steal_pointer (&task));
}

gboolean
pd_session_export_finish (GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- the file chooser --------------------------------------------------- */

typedef struct
{
  GWeakRef               toasts;
  PdSource              *source;
  char                  *session_id;
  PdSessionExportFormat  format;
  char                  *name;
} ChooseData;

static void
choose_data_free (ChooseData *data)
{
  g_weak_ref_clear (&data->toasts);
  g_clear_object (&data->source);
  g_free (data->session_id);
  g_free (data->name);
  g_free (data);
}

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ChooseData *data = user_data;
  g_autoptr(AdwToastOverlay) toasts = g_weak_ref_get (&data->toasts);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!pd_session_export_finish (result, &error))
    /* Translators: %s is a file name, then why it could not be written */
    text = g_strdup_printf (_("Could not export to “%s”: %s"), data->name, error->message);
  else
    /* Translators: %s is a file name */
    text = g_strdup_printf (_("Exported to “%s”"), data->name);

  if (toasts != NULL)
    _pd_toast_add_text (GTK_WIDGET (toasts), text);
  choose_data_free (data);
}

static void
on_chooser_response (GtkNativeDialog *chooser,
                     int              response,
                     ChooseData      *data)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);

  if (file == NULL)
    {
      choose_data_free (data);
      return;
    }
  g_free (data->name);
  data->name = g_file_get_basename (file);
  /* The next export starts where this one went. */
  {
    g_autoptr(GFile) parent = g_file_get_parent (file);
    g_autofree char *folder = parent != NULL ? g_file_get_path (parent) : NULL;

    if (folder != NULL)
      {
        g_autoptr(GSettings) settings = g_settings_new (APP_ID);

        g_settings_set_string (settings, "last-export-folder", folder);
      }
  }
  pd_session_export_async (data->source, data->session_id, data->format, file, NULL, on_exported, data);
}

/* Where the chooser starts: the folder of the last export, else the
 * person's Documents, else their home, never the folder the app happened
 * to be started in (it opened there, tried as a new user would). */
static GFile *
start_folder (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *last = g_settings_get_string (settings, "last-export-folder");
  const char *documents = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);

  if (last[0] != '\0' && g_file_test (last, G_FILE_TEST_IS_DIR))
    return g_file_new_for_path (last);
  if (documents != NULL && g_file_test (documents, G_FILE_TEST_IS_DIR))
    return g_file_new_for_path (documents);
  /* No XDG user folders set (no user-dirs.dirs): GLib knows no Documents,
   * but the person may have one (it opened in home, tried as a new user
   * would). */
  {
    g_autofree char *plain = g_build_filename (g_get_home_dir (), "Documents", NULL);

    if (documents == NULL && g_file_test (plain, G_FILE_TEST_IS_DIR))
      return g_file_new_for_path (plain);
  }
  return g_file_new_for_path (g_get_home_dir ());
}

/* How many characters of a title a suggested file name keeps: the chooser's
 * name field shows about this many. */
#define NAME_MAX_CHARS 64
/* And how many bytes: a name is at most 255 bytes on most file systems,
 * with room for the extension and a chooser's " (2)". */
#define NAME_MAX_BYTES 200

/* Characters that never go into a file name: controls (C0, DEL, C1),
 * which a terminal listing the folder would run as escape sequences, and
 * format characters (bidi controls, zero-width ones), which reorder or hide
 * what the name shows (tried as an attacker would).  Joiners stay: emoji
 * are made with them. */
static gboolean
name_control (gunichar c)
{
  if (c == 0x200c || c == 0x200d)
    return FALSE;
  return g_unichar_iscntrl (c) || g_unichar_type (c) == G_UNICODE_FORMAT ||
         g_unichar_type (c) == G_UNICODE_LINE_SEPARATOR ||
         g_unichar_type (c) == G_UNICODE_PARAGRAPH_SEPARATOR;
}

/* Punctuation a cut leaves dangling; symbols (emoji, a currency) are the
 * title's own and stay (g_unichar_ispunct() counts them too: a title of
 * emoji gave "session.md"). */
static gboolean
name_punctuation (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONNECT_PUNCTUATION:
    case G_UNICODE_DASH_PUNCTUATION:
    case G_UNICODE_OPEN_PUNCTUATION:
    case G_UNICODE_INITIAL_PUNCTUATION:
    case G_UNICODE_OTHER_PUNCTUATION:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Words a cut leaves dangling ("…takes an ISO time and.md", tried as a
 * new user would, nu15): a title in English reads on past them. */
static gboolean
name_stop_word (const char *word)
{
  static const char * const words[] = {
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "is", "its", "of", "on", "or",
    "so", "than", "that", "the", "then", "to", "which", "with",
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_ascii_strcasecmp (word, words[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Trailing spaces and dots ("…everywhere..md"). */
static void
chomp_name (char *name)
{
  gsize len = strlen (name);

  while (len > 0 && (name[len - 1] == '.' || g_ascii_isspace (name[len - 1])))
    name[--len] = '\0';
}

/* A file name from a title: no folder separators, controls or backticks,
 * no dot files, no trailing dot.  A long title is cut at the end of its
 * last whole word within NAME_MAX_CHARS characters and NAME_MAX_BYTES bytes
 * (cut at 64 bytes, names ended in the middle of a word, "…the resumed
 * sessio.md", or of a character; cut at 64 characters, 70 four-byte
 * characters made a name GTK refused); a title of one long word is cut at
 * a character. */
static char *
suggested_name (const char            *title,
                PdSessionExportFormat  format)
{
  g_autofree char *valid = NULL;
  GString *out = g_string_new (NULL);
  g_autofree char *base = NULL;
  gboolean space = FALSE;

  valid = g_utf8_make_valid (title != NULL ? title : "", -1);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      /* No backtick, nor a leading dash ("/etc" gave "-etc", an option
       * to a command given the folder's names). */
      if (c == '`' || ((c == '-' || c == '/' || c == '\\') && out->len == 0))
        continue;
      if (c == '/' || c == '\\' || c == ':')
        c = '-';
      /* A control or a run of spaces is one space. */
      if (name_control (c) || g_unichar_isspace (c))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_unichar (out, c);
    }
  base = g_string_free (out, FALSE);

  if (g_utf8_strlen (base, -1) > NAME_MAX_CHARS || strlen (base) > NAME_MAX_BYTES)
    {
      char *end = base;
      char *cut;

      for (guint n = 0; n < NAME_MAX_CHARS && *end != '\0'; n++)
        {
          char *next = g_utf8_next_char (end);

          if (next - base > NAME_MAX_BYTES)
            break;
          end = next;
        }
      cut = end;
      /* The word at the cut goes whole unless the cut is between words. */
      if (*end != ' ')
        {
          char *p = end;

          while (p > base && p[-1] != ' ')
            p = g_utf8_prev_char (p);
          if (p > base + (end - base) / 3)
            cut = p;
        }
      *cut = '\0';
      g_strchomp (base);
      /* Punctuation and words a cut left dangling ("the parser, and" →
       * "the parser"), the first word kept. */
      for (;;)
        {
          char *last = *base != '\0' ? g_utf8_prev_char (base + strlen (base)) : NULL;
          char *word = strrchr (base, ' ');

          if (last != NULL && name_punctuation (g_utf8_get_char (last)))
            *last = '\0';
          else if (word != NULL && name_stop_word (word + 1))
            *word = '\0';
          else
            break;
          g_strchomp (base);
        }
    }
  chomp_name (base);
  if (*base == '.' || *base == '\0')
    {
      g_free (base);
      base = g_strdup ("session");
    }
  return g_strconcat (base, format == PD_SESSION_EXPORT_JSON ? ".json" : ".md", NULL);
}

/**
 * pd_session_export_choose:
 * @parent: the window the file chooser belongs to
 * @toasts: where the outcome is told
 * @title: the session's title, for the suggested file name
 *
 * Asks where to save @session_id (GtkFileChooserNative: the portal's chooser
 * inside a sandbox) and writes it there.
 */
void
pd_session_export_choose (GtkWindow             *parent,
                          AdwToastOverlay       *toasts,
                          PdSource              *source,
                          const char            *session_id,
                          const char            *title,
                          PdSessionExportFormat  format)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = suggested_name (title, format);
  ChooseData *data = g_new0 (ChooseData, 1);

  g_weak_ref_init (&data->toasts, toasts);
  data->source = g_object_ref (source);
  data->session_id = g_strdup (session_id);
  data->format = format;

  chooser = gtk_file_chooser_native_new (format == PD_SESSION_EXPORT_JSON
                                         ? _("Export Session as JSON") : _("Export Session as Markdown"),
                                         parent, GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (format == PD_SESSION_EXPORT_JSON)
    {
      gtk_file_filter_set_name (filter, _("JSON"));
      gtk_file_filter_add_mime_type (filter, "application/json");
      gtk_file_filter_add_suffix (filter, "json");
    }
  else
    {
      gtk_file_filter_set_name (filter, _("Markdown"));
      gtk_file_filter_add_mime_type (filter, "text/markdown");
      gtk_file_filter_add_suffix (filter, "md");
    }
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  {
    g_autoptr(GFile) folder = start_folder ();

    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
  }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_signal_connect (chooser, "response", G_CALLBACK (on_chooser_response), data);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
