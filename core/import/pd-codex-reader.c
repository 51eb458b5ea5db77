/* pd-codex-reader.c: Codex CLI rollouts. */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-codex-reader.h"
#include "pd-import-private.h"
#include "pd-jsonl-reader.h"
#include "pd-json.h"

#define LITERAL_MAX_DEPTH 32
#define TITLE_MAX_CHARS 120

/* Words that make a line worth parsing (the first eight), and the end of a
 * call output's type, worth it while calls wait: all found in one pass. */
static const char * const needles[] = {
  "update_plan", "\"plan_update\"", "proposed_plan", "\"Plan\"", "\"session_meta\"",
  "\"task_started\"", "\"turn_context\"", "\"user_message\"", "_output\"", NULL,
};

#define NEEDLE_OUTPUT 8
#define WORDS_MASK ((1u << NEEDLE_OUTPUT) - 1)

static const PdNeedles *
get_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (needles));
  return compiled;
}

typedef struct
{
  char      *call_id;
  GPtrArray *items;     /* (nullable) NULL: arguments not a valid plan */
  gboolean   is_exec;
} Call;

struct _PdCodexReader
{
  GObject            parent_instance;

  char              *path;
  gsize              max_line;
  gboolean           follow;
  goffset            offset;
  PdImportedSession *session;
  GHashTable        *calls;       /* call_id → Call */
  GQueue             call_order;  /* call ids (not owned) */
  char              *turn_id;
  guint64            n_lines;
};

G_DEFINE_FINAL_TYPE (PdCodexReader, pd_codex_reader, G_TYPE_OBJECT)

static void
call_free (Call *call)
{
  g_free (call->call_id);
  g_clear_pointer (&call->items, g_ptr_array_unref);
  g_free (call);
}

static void
pd_codex_reader_finalize (GObject *object)
{
  PdCodexReader *self = PD_CODEX_READER (object);

  g_queue_clear (&self->call_order);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_clear_object (&self->session);
  g_free (self->path);
  g_free (self->turn_id);

  G_OBJECT_CLASS (pd_codex_reader_parent_class)->finalize (object);
}

static void
pd_codex_reader_class_init (PdCodexReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_codex_reader_finalize;
}

static void
pd_codex_reader_init (PdCodexReader *self)
{
  self->max_line = PD_JSONL_DEFAULT_MAX_LINE;
  self->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) call_free);
  g_queue_init (&self->call_order);
}

PdCodexReader *
pd_codex_reader_new (const char *path)
{
  PdCodexReader *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_CODEX_READER, NULL);
  self->path = g_strdup (path);
  self->session = pd_imported_session_new (PD_IMPORT_SOURCE_CODEX, path);
  return self;
}

void
pd_codex_reader_set_max_line (PdCodexReader *self,
                              gsize          max_line)
{
  g_return_if_fail (PD_IS_CODEX_READER (self));
  self->max_line = max_line;
}

void
pd_codex_reader_set_follow (PdCodexReader *self,
                            gboolean       follow)
{
  g_return_if_fail (PD_IS_CODEX_READER (self));
  self->follow = !!follow;
}

PdImportedSession *
pd_codex_reader_get_session (PdCodexReader *self)
{
  g_return_val_if_fail (PD_IS_CODEX_READER (self), NULL);
  return self->session;
}

goffset
pd_codex_reader_get_offset (PdCodexReader *self)
{
  g_return_val_if_fail (PD_IS_CODEX_READER (self), 0);
  return self->offset;
}

/* ---------------------------------------------------------------------- */
/* Code mode: a JavaScript object literal to JSON                         */

typedef struct
{
  const char *p;
  GString    *out;
} Lit;

static void
lit_space (Lit *lit)
{
  for (;;)
    {
      while (g_ascii_isspace (*lit->p))
        lit->p++;
      if (lit->p[0] == '/' && lit->p[1] == '/')
        {
          while (*lit->p && *lit->p != '\n')
            lit->p++;
        }
      else if (lit->p[0] == '/' && lit->p[1] == '*')
        {
          const char *end = strstr (lit->p + 2, "*/");
          if (end == NULL)
            return;
          lit->p = end + 2;
        }
      else
        return;
    }
}

static gboolean
lit_string (Lit *lit)
{
  char quote = *lit->p++;
  GString *value = g_string_new (NULL);

  while (*lit->p && *lit->p != quote)
    {
      char c = *lit->p++;

      if (quote == '`' && c == '$' && *lit->p == '{')
        goto fail;  /* an interpolation is not a literal */
      if (c == '\\')
        {
          char e;

          if (*lit->p == '\0')
            goto fail;
          e = *lit->p++;
          switch (e)
            {
            case 'n':  g_string_append_c (value, '\n'); break;
            case 't':  g_string_append_c (value, '\t'); break;
            case 'r':  g_string_append_c (value, '\r'); break;
            case '\\': case '\'': case '"': case '`': case '/':
              g_string_append_c (value, e); break;
            case '\n': break;
            case 'u':
              {
                char hex[5] = { 0 };
                gunichar u;
                for (guint i = 0; i < 4; i++)
                  {
                    if (!g_ascii_isxdigit (lit->p[i]))
                      goto fail;
                    hex[i] = lit->p[i];
                  }
                lit->p += 4;
                u = (gunichar) g_ascii_strtoull (hex, NULL, 16);
                if (!g_unichar_validate (u))
                  goto fail;
                g_string_append_unichar (value, u);
              }
              break;
            default:
              goto fail;
            }
        }
      else if ((c == '\n' && quote != '`') || c == '\0')
        goto fail;
      else
        g_string_append_c (value, c);
    }
  if (*lit->p != quote)
    goto fail;
  lit->p++;
  {
    JsonNode *node = json_node_init_string (json_node_alloc (), value->str);
    g_autofree char *json = json_to_string (node, FALSE);
    g_string_append (lit->out, json);
    json_node_unref (node);
  }
  g_string_free (value, TRUE);
  return TRUE;

fail:
  g_string_free (value, TRUE);
  return FALSE;
}

static gboolean lit_value (Lit *lit, guint depth);

static gboolean
lit_key (Lit *lit)
{
  const char *start = lit->p;

  if (*lit->p == '"' || *lit->p == '\'')
    return lit_string (lit);
  while (g_ascii_isalnum (*lit->p) || *lit->p == '_' || *lit->p == '$')
    lit->p++;
  if (lit->p == start)
    return FALSE;
  g_string_append_c (lit->out, '"');
  g_string_append_len (lit->out, start, lit->p - start);
  g_string_append_c (lit->out, '"');
  return TRUE;
}

static gboolean
lit_container (Lit   *lit,
               guint  depth,
               char   close)
{
  gboolean first = TRUE;

  g_string_append_c (lit->out, *lit->p++);
  for (;;)
    {
      lit_space (lit);
      if (*lit->p == close)
        break;
      if (!first)
        g_string_append_c (lit->out, ',');
      first = FALSE;
      if (close == '}')
        {
          if (!lit_key (lit))
            return FALSE;
          lit_space (lit);
          if (*lit->p++ != ':')
            return FALSE;
          g_string_append_c (lit->out, ':');
          lit_space (lit);
        }
      if (!lit_value (lit, depth + 1))
        return FALSE;
      lit_space (lit);
      if (*lit->p == ',')
        lit->p++;
      else if (*lit->p != close)
        return FALSE;
    }
  lit->p++;
  g_string_append_c (lit->out, close);
  return TRUE;
}

static gboolean
lit_value (Lit   *lit,
           guint  depth)
{
  if (depth > LITERAL_MAX_DEPTH)
    return FALSE;
  lit_space (lit);
  switch (*lit->p)
    {
    case '{':
      return lit_container (lit, depth, '}');
    case '[':
      return lit_container (lit, depth, ']');
    case '"': case '\'': case '`':
      return lit_string (lit);
    default:
      break;
    }
  if (g_str_has_prefix (lit->p, "true") || g_str_has_prefix (lit->p, "null"))
    {
      g_string_append_len (lit->out, lit->p, 4);
      lit->p += 4;
    }
  else if (g_str_has_prefix (lit->p, "false"))
    {
      g_string_append (lit->out, "false");
      lit->p += 5;
    }
  else if (g_ascii_isdigit (*lit->p) || *lit->p == '-')
    {
      const char *start = lit->p++;
      while (g_ascii_isdigit (*lit->p) || *lit->p == '.')
        lit->p++;
      g_string_append_len (lit->out, start, lit->p - start);
    }
  else
    return FALSE;  /* a variable, a call: not statically resolvable */
  /* The word must end there (no "trueish", no "null.x"). */
  return !(g_ascii_isalnum (*lit->p) || *lit->p == '_' || *lit->p == '.' || *lit->p == '(');
}

JsonNode *
pd_codex_extract_exec_plan (const char *script)
{
  static const char name[] = "update_plan";
  const char *call = NULL;
  g_autoptr(GString) out = NULL;
  g_autoptr(JsonParser) parser = NULL;
  Lit lit;

  if (script == NULL)
    return NULL;

  /* Exactly one call. */
  for (const char *p = strstr (script, name); p != NULL; p = strstr (p + 1, name))
    {
      const char *q = p + strlen (name);

      while (g_ascii_isspace (*q))
        q++;
      if (*q != '(')
        continue;
      if (call != NULL)
        return NULL;
      call = q + 1;
    }
  if (call == NULL)
    return NULL;

  out = g_string_new (NULL);
  lit.p = call;
  lit.out = out;
  lit_space (&lit);
  if (*lit.p != '{' || !lit_value (&lit, 0))
    return NULL;
  lit_space (&lit);
  if (*lit.p != ')')
    return NULL;

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, out->str, (gssize) out->len, NULL))
    return NULL;
  return json_node_copy (json_parser_get_root (parser));
}

/* ---------------------------------------------------------------------- */
/* Replay                                                                 */

static const char * const step_members[] = { "step", NULL };

static GPtrArray *
items_from_args (JsonNode *args)
{
  JsonArray *plan;

  if (args == NULL || !JSON_NODE_HOLDS_OBJECT (args))
    return NULL;
  if (!(plan = _pd_import_get_array (json_node_get_object (args), "plan")))
    return NULL;
  return _pd_import_items_from_array (plan, step_members, NULL);
}

static void
add_call (PdCodexReader *self,
          const char    *call_id,
          GPtrArray     *items,
          gboolean       is_exec)
{
  Call *call;

  if (g_hash_table_contains (self->calls, call_id))
    {
      g_clear_pointer (&items, g_ptr_array_unref);
      return;
    }
  while (g_hash_table_size (self->calls) >= PD_IMPORT_MAX_PENDING)
    {
      char *oldest = g_queue_pop_head (&self->call_order);
      g_hash_table_remove (self->calls, oldest);
      pd_imported_session_get_stats (self->session)->ignored_updates++;
    }
  call = g_new0 (Call, 1);
  call->call_id = g_strdup (call_id);
  call->items = items;
  call->is_exec = is_exec;
  g_hash_table_insert (self->calls, call->call_id, call);
  g_queue_push_tail (&self->call_order, call->call_id);
}

static char *
output_text (JsonNode *output,
             gboolean *failed)
{
  *failed = FALSE;
  if (output == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (output))
    {
      JsonObject *object = json_node_get_object (output);
      gboolean success;

      if (_pd_import_get_boolean (object, "success", &success) && !success)
        *failed = TRUE;
      return _pd_import_result_text (json_object_get_member (object, "content"));
    }
  return _pd_import_result_text (output);
}

static gboolean
text_is_error (const char *text)
{
  if (text == NULL)
    return TRUE;
  while (g_ascii_isspace (*text))
    text++;
  return g_ascii_strncasecmp (text, "failed", 6) == 0
         || g_ascii_strncasecmp (text, "error", 5) == 0
         || strstr (text, "not allowed") != NULL
         || strstr (text, "Script failed") != NULL;
}

static void
handle_output (PdCodexReader *self,
               JsonObject    *payload)
{
  const char *call_id = _pd_import_get_string (payload, "call_id");
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  gpointer key, value;
  Call *call;
  g_autofree char *text = NULL;
  gboolean failed;

  if (call_id == NULL || !g_hash_table_steal_extended (self->calls, call_id, &key, &value))
    return;
  g_queue_remove (&self->call_order, key);
  call = value;

  text = output_text (json_object_get_member (payload, "output"), &failed);
  if (failed || text_is_error (text) || call->items == NULL)
    stats->ignored_updates++;
  else
    {
      pd_checklist_replace_agent_items (pd_imported_session_get_checklist (self->session),
                                        PD_CHECKLIST_ORIGIN_CODEX_PLAN, g_steal_pointer (&call->items));
      stats->applied_updates++;
    }
  call_free (call);
}

/* The body of a <proposed_plan> block whose tags stand on their own lines;
 * the last block of the message wins. */
static char *
find_proposed_plan (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GString) body = NULL;
  char *found = NULL;
  gboolean inside = FALSE;

  for (guint i = 0; lines[i]; i++)
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (lines[i]));

      if (!inside && strcmp (trimmed, "<proposed_plan>") == 0)
        {
          inside = TRUE;
          body = g_string_new (NULL);
        }
      else if (inside && strcmp (trimmed, "</proposed_plan>") == 0)
        {
          inside = FALSE;
          g_free (found);
          found = g_string_free (g_steal_pointer (&body), FALSE);
        }
      else if (inside)
        {
          g_string_append (body, lines[i]);
          g_string_append_c (body, '\n');
        }
    }
  return found;
}

static void
add_proposed_plan (PdCodexReader *self,
                   const char    *turn_id,
                   const char    *markdown,
                   gint64         time)
{
  g_autofree char *id = g_strdup_printf ("turn:%s", turn_id ? turn_id : "");
  pd_imported_session_add_plan (self->session, id, markdown, PD_ARTIFACT_PLAN_PROPOSED, time);
}

static void
handle_message (PdCodexReader *self,
                JsonObject    *payload,
                gint64         time)
{
  JsonArray *content = _pd_import_get_array (payload, "content");
  const char *role = _pd_import_get_string (payload, "role");

  if (g_strcmp0 (role, "assistant") != 0 || content == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      const char *text;
      g_autofree char *plan = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      text = _pd_import_get_string (json_node_get_object (element), "text");
      if (text && strstr (text, "<proposed_plan>") && (plan = find_proposed_plan (text)))
        add_proposed_plan (self, self->turn_id, plan, time);
    }
}

static void
handle_line (PdCodexReader *self,
             JsonObject    *line,
             gint64         time)
{
  const char *type = _pd_import_get_string (line, "type");
  JsonObject *payload = _pd_import_get_object (line, "payload");
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  const char *kind = _pd_import_get_string (payload, "type");
  const char *value;

  if (type == NULL || payload == NULL)
    return;

  if (strcmp (type, "session_meta") == 0)
    {
      if ((value = _pd_import_get_string (payload, "id")))
        pd_imported_session_set_id (self->session, value);
      if ((value = _pd_import_get_string (payload, "cwd")))
        pd_imported_session_set_cwd (self->session, value);
      pd_imported_session_note_time (self->session, _pd_import_parse_time (_pd_import_get_string (payload, "timestamp")));
    }
  else if (strcmp (type, "turn_context") == 0)
    {
      if ((value = _pd_import_get_string (payload, "turn_id")))
        {
          g_free (self->turn_id);
          self->turn_id = g_strdup (value);
        }
    }
  else if (strcmp (type, "event_msg") == 0 && kind != NULL)
    {
      if (strcmp (kind, "task_started") == 0 && (value = _pd_import_get_string (payload, "turn_id")))
        {
          g_free (self->turn_id);
          self->turn_id = g_strdup (value);
        }
      else if (strcmp (kind, "user_message") == 0 && pd_imported_session_get_title (self->session) == NULL
               && (value = _pd_import_get_string (payload, "message")) && *value && *value != '<')
        {
          g_autofree char *clean = _pd_import_clean_text (value);
          g_autofree char *cut = g_utf8_strlen (clean, -1) > TITLE_MAX_CHARS
                                 ? g_utf8_substring (clean, 0, TITLE_MAX_CHARS) : NULL;
          pd_imported_session_set_title (self->session, cut ? cut : clean);
        }
      else if (strcmp (kind, "plan_update") == 0)
        {
          /* Not persisted by upstream, written by some tools: a full list. */
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), payload);
          GPtrArray *items = items_from_args (node);

          if (items == NULL)
            stats->ignored_updates++;
          else
            {
              pd_checklist_replace_agent_items (pd_imported_session_get_checklist (self->session),
                                                PD_CHECKLIST_ORIGIN_CODEX_PLAN, items);
              stats->applied_updates++;
            }
        }
      else if (strcmp (kind, "item_completed") == 0)
        {
          JsonObject *item = _pd_import_get_object (payload, "item");
          const char *text = _pd_import_get_string (item, "text");

          if (g_strcmp0 (_pd_import_get_string (item, "type"), "Plan") == 0 && text != NULL)
            {
              value = _pd_import_get_string (payload, "turn_id");
              add_proposed_plan (self, value ? value : self->turn_id, text, time);
            }
        }
    }
  else if (strcmp (type, "response_item") == 0 && kind != NULL)
    {
      const char *call_id = _pd_import_get_string (payload, "call_id");
      const char *name = _pd_import_get_string (payload, "name");

      if (strcmp (kind, "function_call") == 0 && g_strcmp0 (name, "update_plan") == 0 && call_id)
        {
          const char *arguments = _pd_import_get_string (payload, "arguments");
          g_autoptr(JsonNode) args = _pd_import_parse_json (arguments, -1);
          GPtrArray *items = NULL;

          if (args != NULL)
            items = items_from_args (args);
          add_call (self, call_id, items, FALSE);
        }
      else if (strcmp (kind, "custom_tool_call") == 0 && g_strcmp0 (name, "exec") == 0 && call_id)
        {
          g_autoptr(JsonNode) args = pd_codex_extract_exec_plan (_pd_import_get_string (payload, "input"));

          /* Scripts without a plan call are none of ours. */
          if (args != NULL)
            add_call (self, call_id, items_from_args (args), TRUE);
          else if (strstr (_pd_import_get_string (payload, "input") ? _pd_import_get_string (payload, "input") : "",
                           "update_plan"))
            stats->ignored_updates++;
        }
      else if (strcmp (kind, "function_call_output") == 0 || strcmp (kind, "custom_tool_call_output") == 0)
        handle_output (self, payload);
      else if (strcmp (kind, "message") == 0)
        handle_message (self, payload, time);
    }
}

gboolean
pd_codex_reader_update (PdCodexReader  *self,
                        GCancellable   *cancellable,
                        GError        **error)
{
  g_autoptr(PdJsonlReader) reader = NULL;
  g_autoptr(JsonNode) root = NULL;
  PdImportStats *stats;
  const char *line;
  gsize length;
  GError *local = NULL;
  guint n = 0;

  g_return_val_if_fail (PD_IS_CODEX_READER (self), FALSE);

  stats = pd_imported_session_get_stats (self->session);
  if (!(reader = pd_jsonl_reader_new (self->path, self->offset, self->max_line, self->follow, error)))
    return FALSE;

  while (pd_jsonl_reader_next (reader, &line, &length, &local))
    {
      JsonObject *object;
      const char *ts;
      guint32 found;

      if ((++n & 0xfff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, &local))
        break;
      if (length == 0 || line[0] != '{' || line[length - 1] != '}')
        {
          stats->skipped_lines++;
          continue;
        }
      /* Codex lines start with their timestamp: cheap to keep for times. */
      if (g_str_has_prefix (line, "{\"timestamp\":\"") && length > 14 + 24)
        {
          char buf[40];
          const char *end = memchr (line + 14, '"', MIN (length - 14, sizeof buf - 1));
          if (end)
            {
              memcpy (buf, line + 14, (gsize) (end - (line + 14)));
              buf[end - (line + 14)] = '\0';
              pd_imported_session_note_time (self->session, _pd_import_parse_time (buf));
            }
        }
      found = _pd_needles_scan (get_needles (), line, length, NULL);
      if (!(found & WORDS_MASK) && !(g_hash_table_size (self->calls) > 0 && (found & (1u << NEEDLE_OUTPUT))))
        continue;
      if (!(object = _pd_import_parse_object (&root, line, length)))
        {
          stats->skipped_lines++;
          continue;
        }
      ts = _pd_import_get_string (object, "timestamp");
      handle_line (self, object, _pd_import_parse_time (ts));
    }

  stats->lines += pd_jsonl_reader_get_n_lines (reader);
  stats->skipped_lines += pd_jsonl_reader_get_n_too_long (reader);
  stats->bytes_read += (guint64) MAX (pd_jsonl_reader_get_offset (reader) - self->offset, 0);
  self->offset = pd_jsonl_reader_get_offset (reader);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

PdImportedSession *
pd_codex_read (const char  *path,
               GError     **error)
{
  g_autoptr(PdCodexReader) reader = pd_codex_reader_new (path);

  if (!pd_codex_reader_update (reader, NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
