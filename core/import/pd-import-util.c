/* pd-import-util.c: helpers the transcript readers share. */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pd-import-private.h"
#include "pd-jsonl-reader.h"

#define SNIFF_MAX_LINE (1024 * 1024)
#define SNIFF_MAX_LINES 8
#include "pd-json.h"

JsonObject *
_pd_import_parse_object (JsonParser *parser,
                         const char *line,
                         gsize       length)
{
  JsonNode *root;

  if (!g_utf8_validate (line, (gssize) length, NULL))
    return NULL;
  if (pd_json_nesting_exceeds (line, (gssize) length, PD_JSON_FOREIGN_MAX_DEPTH))
    return NULL;
  if (!json_parser_load_from_data (parser, line, (gssize) length, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_node_get_object (root);
}

const char *
_pd_import_get_string (JsonObject *object,
                       const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

JsonObject *
_pd_import_get_object (JsonObject *object,
                       const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
_pd_import_get_array (JsonObject *object,
                      const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  return JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

char *
_pd_import_get_id (JsonObject *object,
                   const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)) || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      return *s ? g_strdup (s) : NULL;
    }
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  return NULL;
}

gboolean
_pd_import_get_boolean (JsonObject *object,
                        const char *member,
                        gboolean   *value)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FALSE;
  *value = json_node_get_boolean (node);
  return TRUE;
}

gint64
_pd_import_parse_time (const char *text)
{
  g_autoptr(GDateTime) time = NULL;

  if (text == NULL || *text == '\0')
    return 0;
  if (!(time = g_date_time_new_from_iso8601 (text, NULL)))
    return 0;
  return g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
}

char *
_pd_import_clean_text (const char *text)
{
  GString *out;
  glong n = 0;

  if (text == NULL)
    return g_strdup ("");

  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p && n < PD_IMPORT_MAX_TEXT; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029)
        {
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
        }
      else
        g_string_append_unichar (out, c);
    }
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

GPtrArray *
_pd_import_items_from_array (JsonArray          *array,
                             const char * const *text_members,
                             const char         *id_member)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  guint n;

  if (array == NULL)
    return NULL;

  n = json_array_get_length (array);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      const char *text = NULL;
      const char *status_text;
      PdChecklistStatus status;
      g_autofree char *clean = NULL;
      g_autofree char *id = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return NULL;
      object = json_node_get_object (element);
      for (guint j = 0; text == NULL && text_members[j]; j++)
        text = _pd_import_get_string (object, text_members[j]);
      if (text == NULL)
        return NULL;
      status_text = _pd_import_get_string (object, "status");
      if (json_object_has_member (object, "status") && status_text == NULL)
        return NULL;
      if (!pd_checklist_status_parse (status_text, &status))
        continue;  /* "deleted" in a snapshot: not an item */
      if (items->len >= PD_IMPORT_MAX_ITEMS)
        break;
      clean = _pd_import_clean_text (text);
      id = id_member ? _pd_import_get_id (object, id_member) : NULL;
      g_ptr_array_add (items, pd_checklist_item_new (clean, status, id));
    }

  return g_steal_pointer (&items);
}

char *
_pd_import_result_text (JsonNode *content)
{
  GString *out;
  JsonArray *array;

  if (content == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (content));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;

  array = json_node_get_array (content);
  out = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      if ((text = _pd_import_get_string (json_node_get_object (element), "text")))
        {
          if (out->len > 0)
            g_string_append_c (out, '\n');
          g_string_append (out, text);
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
_pd_import_line_has_any (const char         *line,
                         gsize               length,
                         const char * const *needles)
{
  for (guint i = 0; needles[i]; i++)
    if (memmem (line, length, needles[i], strlen (needles[i])))
      return TRUE;
  return FALSE;
}

/* ---------------------------------------------------------------------- */
/* Many needles, one pass                                                 */

#define BLOCK 3
#define HASH_BITS 15

struct _PdNeedles
{
  guint       n;
  gsize       m;                       /* the window: the shortest needle */
  const char *needles[PD_NEEDLES_MAX];
  gsize       lengths[PD_NEEDLES_MAX];
  guint16     tails[PD_NEEDLES_MAX];   /* hash of the block ending each needle's window */
  guint8      shift[1 << HASH_BITS];   /* by the hash of the block ending the window */
  /* All needles open with a quote: a raw quote in JSON text is structural
   * (inside strings it is escaped), so the scan hops from quote to quote. */
  gboolean    quoted;
  guint32     by_second[256];          /* needles by the byte after their quote */
};

/* Three bytes, hashed: fewer blocks of ordinary JSON text look like a
 * needle's than with two, so the window moves further per step. */
static inline guint16
block_at (const char *p)
{
  guint h = (guint) (guint8) p[0] ^ ((guint) (guint8) p[1] << 5) ^ ((guint) (guint8) p[2] << 10);
  return (guint16) (h & ((1u << HASH_BITS) - 1));
}

PdNeedles *
_pd_needles_new (const char * const *needles)
{
  PdNeedles *self = g_new0 (PdNeedles, 1);

  self->m = G_MAXSIZE;
  for (guint i = 0; needles[i]; i++)
    {
      g_return_val_if_fail (i < PD_NEEDLES_MAX, self);
      self->needles[i] = needles[i];
      self->lengths[i] = strlen (needles[i]);
      g_return_val_if_fail (self->lengths[i] >= BLOCK, self);
      self->m = MIN (self->m, self->lengths[i]);
      self->n = i + 1;
    }
  self->m = MIN (self->m, 255);
  self->quoted = self->n > 0;
  for (guint i = 0; i < self->n; i++)
    {
      if (self->needles[i][0] != '"')
        self->quoted = FALSE;
      self->by_second[(guint8) self->needles[i][1]] |= 1u << i;
    }
  memset (self->shift, (int) (self->m - BLOCK + 1), sizeof self->shift);
  for (guint i = 0; i < self->n; i++)
    {
      for (gsize j = 0; j + BLOCK <= self->m; j++)
        {
          guint16 block = block_at (self->needles[i] + j);
          guint8 s = (guint8) (self->m - BLOCK - j);
          if (s < self->shift[block])
            self->shift[block] = s;
        }
      self->tails[i] = block_at (self->needles[i] + self->m - BLOCK);
    }
  return self;
}

void
_pd_needles_free (PdNeedles *self)
{
  g_free (self);
}

guint32
_pd_needles_scan (const PdNeedles  *self,
                  const char       *line,
                  gsize             length,
                  const char      **first)
{
  const gsize m = self->m;
  guint32 found = 0;
  gsize pos;

  if (self->n == 0 || length < m)
    return 0;

  if (self->quoted)
    {
      const char *end = line + length;
      const char *p = line;

      while ((p = memchr (p, '"', (gsize) (end - p - 1))) != NULL)
        {
          guint32 candidates = self->by_second[(guint8) p[1]] & ~found;

          while (candidates != 0)
            {
              guint i = (guint) g_bit_nth_lsf (candidates, -1);

              candidates &= ~(1u << i);
              if (self->lengths[i] <= (gsize) (end - p) && memcmp (p, self->needles[i], self->lengths[i]) == 0)
                {
                  found |= 1u << i;
                  if (first)
                    first[i] = p;
                }
            }
          if (++p >= end - 1)
            break;
        }
      return found;
    }

  /* pos: the last byte of the window line[pos - m + 1 .. pos]. */
  for (pos = m - 1; pos < length;)
    {
      guint16 block = block_at (line + pos + 1 - BLOCK);
      guint8 s = self->shift[block];
      const char *start;

      if (s > 0)
        {
          pos += s;
          continue;
        }
      start = line + pos + 1 - m;
      for (guint i = 0; i < self->n; i++)
        {
          if (self->tails[i] != block || (found & (1u << i)))
            continue;
          if (self->lengths[i] <= length - (gsize) (start - line)
              && memcmp (start, self->needles[i], self->lengths[i]) == 0)
            {
              found |= 1u << i;
              if (first)
                first[i] = start;
            }
        }
      pos++;
    }
  return found;
}

/* ---------------------------------------------------------------------- */
/* Recognising formats                                                    */

static const char * const claude_types[] = {
  "user", "assistant", "system", "summary", "attachment", "file-history-snapshot",
  "queue-operation", "progress", "permission-mode", "last-prompt", "custom-title", NULL,
};
static const char * const codex_types[] = {
  "session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state", NULL,
};

PdImportFormat
_pd_import_sniff_jsonl (const char  *path,
                        char       **session_id)
{
  g_autoptr(PdJsonlReader) reader = pd_jsonl_reader_new (path, 0, SNIFF_MAX_LINE, FALSE, NULL);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  const char *line;
  gsize length;
  PdImportFormat format = PD_IMPORT_FORMAT_UNKNOWN;

  for (guint i = 0; reader && i < SNIFF_MAX_LINES && pd_jsonl_reader_next (reader, &line, &length, NULL); i++)
    {
      JsonObject *object = _pd_import_parse_object (parser, line, length);
      const char *type = _pd_import_get_string (object, "type");

      if (type == NULL)
        continue;
      if (g_strv_contains (codex_types, type) && json_object_has_member (object, "payload"))
        return PD_IMPORT_FORMAT_CODEX;
      if (g_strv_contains (claude_types, type))
        {
          format = PD_IMPORT_FORMAT_CLAUDE;
          if (session_id && _pd_import_get_string (object, "sessionId"))
            {
              *session_id = g_strdup (_pd_import_get_string (object, "sessionId"));
              return format;
            }
        }
    }
  return format;
}

gboolean
_pd_import_is_sqlite (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
  char header[16];
  gsize n = 0;

  if (stream == NULL
      || !g_input_stream_read_all (G_INPUT_STREAM (stream), header, sizeof header, &n, NULL, NULL))
    return FALSE;
  return n == sizeof header && memcmp (header, "SQLite format 3", 16) == 0;
}

gboolean
_pd_import_is_opencode_storage (const char *dir)
{
  g_autofree char *session = g_build_filename (dir, "session", NULL);
  g_autofree char *part = g_build_filename (dir, "part", NULL);
  g_autofree char *message = g_build_filename (dir, "message", NULL);

  return g_file_test (session, G_FILE_TEST_IS_DIR)
         && (g_file_test (part, G_FILE_TEST_IS_DIR) || g_file_test (message, G_FILE_TEST_IS_DIR));
}
