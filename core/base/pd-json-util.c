/* pd-json-util.c: typed reads of JSON members (see pd-json-util.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-json-util"

#include "config.h"

#include "pd-json-util.h"

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  return object != NULL ? json_object_get_member (object, name) : NULL;
}

const char *
pd_json_node_get_string (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

JsonNode *
pd_json_get_member (JsonObject *object,
                    const char *name)
{
  return member (object, name);
}

const char *
pd_json_get_string (JsonObject *object,
                    const char *name)
{
  return pd_json_node_get_string (member (object, name));
}

JsonObject *
pd_json_get_object (JsonObject *object,
                    const char *name)
{
  JsonNode *node = member (object, name);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
pd_json_get_array (JsonObject *object,
                   const char *name)
{
  JsonNode *node = member (object, name);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

gboolean
pd_json_get_boolean (JsonObject *object,
                     const char *name,
                     gboolean    fallback)
{
  JsonNode *node = member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fallback;
  return json_node_get_boolean (node);
}

static gint64
node_get_int (JsonNode *node,
              gint64    fallback)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return json_node_get_int (node);
    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        /* Converting a double outside gint64 (or NaN) is undefined
         * behaviour; such a number is as good as missing. */
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
          return fallback;
        return (gint64) d;
      }
    default:
      return fallback;
    }
}

gint64
pd_json_get_int (JsonObject *object,
                 const char *name,
                 gint64      fallback)
{
  return node_get_int (member (object, name), fallback);
}

static JsonNode *
element (JsonArray *array,
         guint      index)
{
  return array != NULL && index < json_array_get_length (array) ? json_array_get_element (array, index) : NULL;
}

JsonObject *
pd_json_array_get_object (JsonArray *array,
                          guint      index)
{
  JsonNode *node = element (array, index);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

gint64
pd_json_array_get_int (JsonArray *array,
                       guint      index,
                       gint64     fallback)
{
  return node_get_int (element (array, index), fallback);
}

char *
pd_json_content_text (JsonNode   *content,
                      const char *separator)
{
  JsonArray *array;
  GString *out;
  guint n;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return g_strdup ("");
  if (pd_json_node_get_string (content) != NULL)
    return g_strdup (pd_json_node_get_string (content));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;

  array = json_node_get_array (content);
  n = json_array_get_length (array);
  out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      const char *text = pd_json_get_string (pd_json_array_get_object (array, i), "text");

      if (text == NULL)
        continue;
      if (out->len > 0)
        g_string_append (out, separator);
      g_string_append (out, text);
    }

  return g_string_free (out, FALSE);
}

char *
pd_json_dup_id (JsonObject *object,
                const char *name)
{
  JsonNode *node = member (object, name);
  const char *text;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if ((text = pd_json_node_get_string (node)))
    return *text ? g_strdup (text) : NULL;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  return NULL;
}

gboolean
pd_json_get_optional_string (JsonObject  *object,
                             const char  *name,
                             const char **value)
{
  JsonNode *node = member (object, name);

  *value = pd_json_node_get_string (node);
  return *value != NULL || node == NULL || JSON_NODE_HOLDS_NULL (node);
}
