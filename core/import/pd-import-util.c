/* pd-import-util.c: helpers the transcript readers share. */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"
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
