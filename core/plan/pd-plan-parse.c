/* pd-plan-parse.c: the strict, total parser of rendered plan messages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-error.h"
#include "pd-plan-limits.h"
#include "pd-plan-parse.h"
#include "pd-plan-render.h"
#include "pd-plan-text.h"

#define EM_DASH_SEP " \xe2\x80\x94 "
#define HEADER_TAIL ". Structured state, not instructions.]"

typedef struct
{
  const char *p;
  const char *end;
} Cursor;

static gboolean
eat (Cursor     *c,
     const char *literal)
{
  gsize len = strlen (literal);

  if ((gsize) (c->end - c->p) < len || memcmp (c->p, literal, len) != 0)
    return FALSE;
  c->p += len;
  return TRUE;
}

/* Digits only, at most nine of them, no sign, no leading zero: exactly what
 * the renderer writes. */
static gboolean
eat_number (Cursor *c,
            guint  *value)
{
  const char *start = c->p;
  guint v = 0;

  while (c->p < c->end && g_ascii_isdigit (*c->p) && c->p - start < 10)
    {
      v = v * 10 + (guint) (*c->p - '0');
      c->p++;
    }

  if (c->p == start || c->p - start > 9)
    return FALSE;
  if (*start == '0' && c->p - start > 1)
    return FALSE;

  *value = v;
  return TRUE;
}

static gpointer
parse_error (GError     **error,
             const char  *format,
             ...) G_GNUC_PRINTF (2, 3);

static gpointer
parse_error (GError     **error,
             const char  *format,
             ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error_literal (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE, message);
  return NULL;
}

typedef struct
{
  guint    version;
  gboolean collapsed;
  guint    total;
  guint    done;
  guint    blocked;
  gboolean checks;
} Header;

static gboolean
parse_header (const char  *line,
              gsize        len,
              Header      *h,
              GError     **error)
{
  Cursor c = { line, line + len };

  memset (h, 0, sizeof *h);

  if (!eat (&c, "[Current plan: v"))
    return parse_error (error, "plan: bad header: expected \"[Current plan: vN — …]\""), FALSE;
  if (!eat_number (&c, &h->version) || h->version == 0)
    return parse_error (error, "plan: bad header: bad version number"), FALSE;
  if (!eat (&c, EM_DASH_SEP))
    return parse_error (error, "plan: bad header: expected \" — \" after the version"), FALSE;

  if (eat (&c, "all "))
    {
      if (!eat_number (&c, &h->total) || h->total == 0)
        return parse_error (error, "plan: bad header: bad step count"), FALSE;
      if (!eat (&c, " steps complete.]") || c.p != c.end)
        return parse_error (error, "plan: bad header: malformed collapsed header"), FALSE;
      h->collapsed = TRUE;
      h->done = h->total;
      return TRUE;
    }

  if (!eat_number (&c, &h->done) || !eat (&c, "/") || !eat_number (&c, &h->total))
    return parse_error (error, "plan: bad header: expected \"D/T done\""), FALSE;
  if (!eat (&c, " done, ") || !eat_number (&c, &h->blocked) || !eat (&c, " blocked"))
    return parse_error (error, "plan: bad header: expected \"D/T done, B blocked\""), FALSE;
  h->checks = eat (&c, ", checks");
  if (!eat (&c, HEADER_TAIL) || c.p != c.end)
    return parse_error (error, "plan: bad header: missing \"Structured state, not instructions.\""), FALSE;

  return TRUE;
}

static gboolean
keys_allowed (JsonObject        *object,
              const char * const *allowed)
{
  GList *members = json_object_get_members (object);
  gboolean ok = TRUE;

  for (GList *l = members; l && ok; l = l->next)
    ok = g_strv_contains (allowed, l->data);
  g_list_free (members);

  return ok;
}

static GPtrArray *
parse_checks (const char  *json,
              gsize        len,
              guint        line_no,
              GError     **error)
{
  static const char * const allowed[] = { "id", "description", "tool", "arguments", "status", "call_id", NULL };
  g_autoptr(GPtrArray) checks = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_check_free);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *array;
  guint n;

  /* The renderer writes the array right after the marker and nothing after
   * it; JSON's optional surrounding whitespace would be a deviation. */
  if (len < 2 || json[0] != '[' || json[len - 1] != ']')
    return parse_error (error, "plan: line %u: invalid checks JSON: not exactly one array after the marker", line_no);

  root = pd_json_parse (json, len, &local_error);
  if (root == NULL)
    return parse_error (error, "plan: line %u: invalid checks JSON: %s", line_no, local_error->message);
  if (!JSON_NODE_HOLDS_ARRAY (root))
    return parse_error (error, "plan: line %u: invalid checks JSON: not an array", line_no);

  array = json_node_get_array (root);
  n = json_array_get_length (array);
  if (n == 0 || n > PD_PLAN_MAX_CHECKS)
    return parse_error (error, "plan: line %u: invalid checks JSON: %u checks (want 1..%d)",
                        line_no, n, PD_PLAN_MAX_CHECKS);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      const char *id, *description, *tool, *status, *call_id = NULL;
      JsonNode *arguments;
      g_autofree char *canonical = NULL;
      PdPlanCheckStatus check_status;
      PdPlanCheck *check;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return parse_error (error, "plan: line %u: invalid checks JSON: check %u is not an object", line_no, i);

      object = json_node_get_object (element);
      if (!keys_allowed (object, allowed))
        return parse_error (error, "plan: line %u: invalid checks JSON: check %u has unknown keys", line_no, i);

      id = pd_json_get_string (object, "id");
      description = pd_json_get_string (object, "description");
      tool = pd_json_get_string (object, "tool");
      status = pd_json_get_string (object, "status");
      arguments = json_object_get_member (object, "arguments");

      if (!pd_plan_check_id_is_valid (id))
        return parse_error (error, "plan: line %u: invalid checks JSON: check %u has an invalid id", line_no, i);
      if (description == NULL || *description == '\0' ||
          g_utf8_strlen (description, -1) > PD_PLAN_MAX_PERSISTED_DESC_CHARS)
        return parse_error (error, "plan: line %u: invalid checks JSON: check \"%s\" has an invalid description", line_no, id);
      if (tool == NULL || *tool == '\0' || strcmp (tool, "plan") == 0 ||
          g_utf8_strlen (tool, -1) > PD_PLAN_MAX_CHECK_TOOL_CHARS || pd_plan_text_has_control (tool))
        return parse_error (error, "plan: line %u: invalid checks JSON: check \"%s\" has an invalid tool", line_no, id);
      if (!pd_plan_check_status_from_string (status, &check_status))
        return parse_error (error, "plan: line %u: invalid checks JSON: check \"%s\" has unknown status", line_no, id);
      if (!(canonical = pd_json_canonicalize_object (arguments, NULL)) ||
          strlen (canonical) > PD_PLAN_MAX_CHECK_ARGS_BYTES)
        return parse_error (error, "plan: line %u: invalid checks JSON: check \"%s\" arguments must be an object of at most %d bytes",
                            line_no, id, PD_PLAN_MAX_CHECK_ARGS_BYTES);

      if (json_object_has_member (object, "call_id"))
        {
          call_id = pd_json_get_string (object, "call_id");
          if (call_id == NULL || *call_id == '\0' ||
              g_utf8_strlen (call_id, -1) > PD_PLAN_MAX_CALL_ID_CHARS || pd_plan_text_has_control (call_id))
            return parse_error (error, "plan: line %u: invalid checks JSON: check \"%s\" has an invalid call_id", line_no, id);
        }

      for (guint j = 0; j < checks->len; j++)
        if (strcmp (((PdPlanCheck *) g_ptr_array_index (checks, j))->id, id) == 0)
          return parse_error (error, "plan: line %u: invalid checks JSON: duplicate check id \"%s\"", line_no, id);

      check = pd_plan_check_new (id, description, tool, canonical);
      check->status = check_status;
      check->call_id = g_strdup (call_id);
      g_ptr_array_add (checks, check);
    }

  return g_steal_pointer (&checks);
}

static PdPlanRevision *
parse_revision (const char  *line,
                gsize        len,
                GError     **error)
{
  static const char * const allowed[] = { "reason", "summary", NULL };
  gsize prefix = strlen (PD_PLAN_REVISION_PREFIX);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PdPlanRevision) revision = NULL;
  JsonObject *object;
  JsonNode *summary;
  const char *reason;

  if (len < prefix + 3 || line[len - 1] != ']' || line[prefix] != '{' || line[len - 2] != '}')
    return parse_error (error, "plan: invalid revision metadata");

  root = pd_json_parse (line + prefix, len - prefix - 1, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return parse_error (error, "plan: invalid revision metadata");

  object = json_node_get_object (root);
  reason = pd_json_get_string (object, "reason");
  if (!keys_allowed (object, allowed) || reason == NULL || *reason == '\0' ||
      g_utf8_strlen (reason, -1) > PD_PLAN_MAX_REVISION_REASON)
    return parse_error (error, "plan: invalid revision metadata");

  revision = pd_plan_revision_new (reason);
  summary = json_object_get_member (object, "summary");

  if (summary != NULL && !JSON_NODE_HOLDS_NULL (summary))
    {
      JsonArray *items;

      if (!JSON_NODE_HOLDS_ARRAY (summary))
        return parse_error (error, "plan: invalid revision metadata");

      items = json_node_get_array (summary);
      if (json_array_get_length (items) > PD_PLAN_MAX_REVISION_SUMMARY)
        return parse_error (error, "plan: invalid revision metadata");

      for (guint i = 0; i < json_array_get_length (items); i++)
        {
          const char *item = pd_json_node_get_string (json_array_get_element (items, i));

          if (item == NULL || g_utf8_strlen (item, -1) > PD_PLAN_MAX_REVISION_SUMMARY_ITEM)
            return parse_error (error, "plan: invalid revision metadata");
          g_ptr_array_add (revision->summary, g_strdup (item));
        }
    }

  return g_steal_pointer (&revision);
}

static PdPlanStep *
parse_step_line (const char  *line,
                 gsize        len,
                 guint        line_no,
                 GError     **error)
{
  const char *end = line + len;
  const char *space = memchr (line, ' ', len);
  const char *close;
  const char *marker;
  const char *text_end;
  const char *sep;
  g_autofree char *id = NULL;
  g_autofree char *status_token = NULL;
  g_autofree char *title = NULL;
  g_autofree char *note = NULL;
  g_autoptr(PdPlanStep) step = NULL;
  PdPlanStepStatus status;

  if (space == NULL || space == line || space + 1 >= end || space[1] != '[')
    return parse_error (error, "plan: line %u: not a step line (a multi-line step or stray text)", line_no);

  id = g_strndup (line, space - line);
  if (!pd_plan_step_id_is_valid (id))
    return parse_error (error, "plan: line %u: invalid step id", line_no);

  close = memchr (space + 2, ']', end - (space + 2));
  if (close == NULL)
    return parse_error (error, "plan: line %u: not a step line (no status)", line_no);

  status_token = g_strndup (space + 2, close - (space + 2));
  if (!pd_plan_step_status_from_string (status_token, &status))
    return parse_error (error, "plan: line %u: unknown status \"%s\"", line_no, status_token);

  if (close + 1 >= end || close[1] != ' ' || close + 2 >= end)
    return parse_error (error, "plan: line %u: step %s has no title", line_no, id);

  step = pd_plan_step_new (id, NULL);
  step->status = status;

  /* Titles and notes never hold the marker, so its first occurrence starts
   * the checks JSON, which may itself hold anything. */
  marker = g_strstr_len (close + 2, end - (close + 2), PD_PLAN_CHECKS_MARKER);
  text_end = marker ? marker : end;

  if (marker)
    {
      const char *json = marker + strlen (PD_PLAN_CHECKS_MARKER);
      GPtrArray *checks = parse_checks (json, end - json, line_no, error);

      if (checks == NULL)
        return NULL;
      g_ptr_array_unref (step->checks);
      step->checks = checks;
    }

  /* Titles and notes hold no em dash, so the first separator splits them. */
  sep = g_strstr_len (close + 2, text_end - (close + 2), EM_DASH_SEP);
  if (sep)
    {
      title = g_strndup (close + 2, sep - (close + 2));
      note = g_strndup (sep + strlen (EM_DASH_SEP), text_end - (sep + strlen (EM_DASH_SEP)));
      if (*note == '\0' || !pd_plan_text_is_normalized (note) ||
          g_utf8_strlen (note, -1) > PD_PLAN_MAX_NOTE_CHARS)
        return parse_error (error, "plan: line %u: step %s has an invalid note", line_no, id);
    }
  else
    title = g_strndup (close + 2, text_end - (close + 2));

  if (*title == '\0')
    return parse_error (error, "plan: line %u: step %s has no title", line_no, id);
  if (!pd_plan_text_is_normalized (title) || g_utf8_strlen (title, -1) > PD_PLAN_MAX_TITLE_CHARS)
    return parse_error (error, "plan: line %u: step %s has an invalid title", line_no, id);

  g_free (step->title);
  step->title = g_steal_pointer (&title);
  pd_plan_step_set_note (step, note);

  return g_steal_pointer (&step);
}

static gboolean
nonce_is_valid (const char *nonce,
                gsize       len)
{
  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (nonce[i]))
      return FALSE;
  return TRUE;
}

typedef struct
{
  const char *start;
  gsize       len;
} Line;

/**
 * pd_plan_parse:
 * @text: a rendered plan message, wrapped or plain
 * @max_steps: the step cap to enforce
 *
 * Returns: (transfer full): the state, or %NULL with a `plan: …` error
 */
PdPlanState *
pd_plan_parse (const char  *text,
               guint        max_steps,
               GError     **error)
{
  g_autoptr(GArray) lines = NULL;
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GHashTable) ids = NULL;
  Header header;
  PdPlanCounts counts;
  guint body_start, body_end;
  gsize text_len;

  if (text == NULL || *text == '\0')
    return parse_error (error, "plan: empty plan message");

  text_len = strlen (text);
  if (!g_utf8_validate_len (text, text_len, NULL))
    return parse_error (error, "plan: message is not valid UTF-8");

  lines = g_array_new (FALSE, FALSE, sizeof (Line));
  for (const char *p = text; ; )
    {
      const char *nl = strchr (p, '\n');
      Line line = { p, nl ? (gsize) (nl - p) : strlen (p) };

      g_array_append_val (lines, line);
      if (nl == NULL)
        break;
      p = nl + 1;
    }

  if (!parse_header (g_array_index (lines, Line, 0).start, g_array_index (lines, Line, 0).len, &header, error))
    return NULL;

  state = pd_plan_state_new ();
  state->version = header.version;

  if (header.collapsed)
    {
      if (lines->len != 1)
        return parse_error (error, "plan: collapsed plan header followed by more content");
      if (header.total > max_steps)
        return parse_error (error, "plan: %u steps exceed the cap of %u", header.total, max_steps);
      /* All done and nothing else worth keeping: a version with no rows. */
      return g_steal_pointer (&state);
    }

  body_start = 1;
  body_end = lines->len;

  if (lines->len > 1 && g_str_has_prefix (g_array_index (lines, Line, 1).start, "<untrusted_content_"))
    {
      const Line *open = &g_array_index (lines, Line, 1);
      static const char open_prefix[] = "<untrusted_content_";
      static const char open_suffix[] = " source=\"plan\">";
      const char *nonce = open->start + strlen (open_prefix);
      gsize nonce_len;
      g_autofree char *close_tag = NULL;
      guint close_index = 0;

      if (open->len < strlen (open_prefix) + strlen (open_suffix) + 1 ||
          memcmp (open->start + open->len - strlen (open_suffix), open_suffix, strlen (open_suffix)) != 0)
        return parse_error (error, "plan: malformed untrusted wrapper");

      nonce_len = open->len - strlen (open_prefix) - strlen (open_suffix);
      if (!nonce_is_valid (nonce, nonce_len))
        return parse_error (error, "plan: malformed untrusted wrapper");

      close_tag = g_strdup_printf ("</untrusted_content_%.*s>", (int) nonce_len, nonce);
      for (guint i = 2; i < lines->len; i++)
        {
          const Line *line = &g_array_index (lines, Line, i);

          if (line->len == strlen (close_tag) && memcmp (line->start, close_tag, line->len) == 0)
            {
              close_index = i;
              break;
            }
        }

      if (close_index == 0)
        return parse_error (error, "plan: unterminated untrusted wrapper");
      if (close_index != lines->len - 1)
        return parse_error (error, "plan: content after wrapper close tag");
      if (close_index == 2)
        return parse_error (error, "plan: empty untrusted wrapper");

      body_start = 2;
      body_end = close_index;
    }

  if (body_start >= body_end)
    return parse_error (error, "plan: no step lines");

  ids = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = body_start; i < body_end; i++)
    {
      const Line *line = &g_array_index (lines, Line, i);
      guint line_no = i + 1;
      PdPlanStep *step;

      if (line->len == 0)
        return parse_error (error, "plan: line %u: blank line in plan body", line_no);

      if (line->start[0] == '[')
        {
          if (g_str_has_prefix (line->start, "[+"))
            return parse_error (error, "plan: line %u: omission marker: an overflowed plan is not resumable", line_no);
          if (g_str_has_prefix (line->start, "[plan truncated:"))
            return parse_error (error, "plan: line %u: truncated plan is not resumable", line_no);
          if (g_str_has_prefix (line->start, PD_PLAN_REVISION_PREFIX))
            {
              if (i != body_start || state->revision != NULL)
                return parse_error (error, "plan: line %u: revision metadata out of place", line_no);
              if (!(state->revision = parse_revision (line->start, line->len, error)))
                return NULL;
              continue;
            }
          return parse_error (error, "plan: line %u: not a step line", line_no);
        }

      if (!(step = parse_step_line (line->start, line->len, line_no, error)))
        return NULL;

      if (g_hash_table_contains (ids, step->id))
        {
          parse_error (error, "plan: line %u: duplicate step id \"%s\"", line_no, step->id);
          pd_plan_step_free (step);
          return NULL;
        }

      g_ptr_array_add (state->steps, step);
      g_hash_table_add (ids, step->id);

      if (state->steps->len > max_steps)
        return parse_error (error, "plan: more than %u steps exceed the cap", max_steps);
    }

  if (state->steps->len == 0)
    return parse_error (error, "plan: no step lines");

  pd_plan_state_count (state, &counts);

  if (counts.steps != header.total)
    return parse_error (error, "plan: header says %u steps but %u step lines follow", header.total, counts.steps);
  if (counts.done != header.done)
    return parse_error (error, "plan: header says %u done but %u steps are done", header.done, counts.done);
  if (counts.blocked != header.blocked)
    return parse_error (error, "plan: header says %u blocked but %u steps are blocked", header.blocked, counts.blocked);
  if ((counts.checks > 0) != header.checks)
    return parse_error (error, "plan: check header does not match steps");

  /* A render with every step done, no checks and no revision is always
   * collapsed; the long form of such a plan was not written by a renderer. */
  if (counts.done == counts.steps && counts.checks == 0 && state->revision == NULL)
    return parse_error (error, "plan: an all-done plan without checks must use the collapsed header");

  return g_steal_pointer (&state);
}

/* Recognition needs both the system role and the prefix: a tool result that
 * quotes a plan never becomes one. */
gboolean
pd_plan_is_plan_message (const char *role,
                         const char *content)
{
  return g_strcmp0 (role, "system") == 0 &&
         content != NULL &&
         g_str_has_prefix (content, PD_PLAN_MESSAGE_PREFIX);
}

/**
 * pd_plan_extract:
 * @messages: OpenAI-shaped messages (objects with "role" and "content")
 * @index: (out) (optional): position of the message the plan came from
 *
 * Read-only extraction for surfaces: the newest parseable plan message wins,
 * corrupt ones are skipped, and the cap is the absolute ceiling of 50 steps
 * rather than the operator's max_steps, so an old plan still displays.
 *
 * Returns: (transfer full) (nullable): the plan, or %NULL when none parses
 */
PdPlanState *
pd_plan_extract (JsonArray *messages,
                 guint     *index)
{
  guint n;

  if (messages == NULL)
    return NULL;

  n = json_array_get_length (messages);
  for (guint i = n; i-- > 0; )
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message;
      const char *role, *content;
      PdPlanState *state;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      message = json_node_get_object (node);
      role = pd_json_get_string (message, "role");
      content = pd_json_get_string (message, "content");

      if (!pd_plan_is_plan_message (role, content))
        continue;

      if ((state = pd_plan_parse (content, PD_PLAN_STEP_CEILING, NULL)))
        {
          if (index)
            *index = i;
          return state;
        }
    }

  return NULL;
}
