/* pd-tool-args.c: helpers of the built-in tools: their schemas, typed reads
 * of the model's arguments with errors the model can act on, and what counts
 * as text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include "pd-json.h"

#include <math.h>
#include <string.h>

#include "pd-tool-private.h"


JsonNode *
_pd_tool_parse_schema (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = pd_json_from_string_bounded (json, &error);

  /* The schemas are constants of this library: a bad one is a bug. */
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    g_error ("built-in tool schema does not parse: %s", error ? error->message : "not an object");

  return node;
}

static const char *
json_type_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  if (JSON_NODE_HOLDS_NULL (node))
    return "null";

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return "a string";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    default:
      return "a number";
    }
}

/* A member the model may leave out: *@node is NULL when it is absent or
 * null, or the member when it holds a @type value; anything else is FALSE,
 * with an error result saying it must be @what. */
static gboolean
optional_member (JsonObject    *args,
                 const char    *tool,
                 const char    *key,
                 GType          type,
                 const char    *what,
                 JsonNode     **node,
                 PdToolResult **error_result)
{
  JsonNode *member = json_object_get_member (args, key);

  *node = NULL;

  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != type)
    {
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' must be %s, got %s",
                                                 tool, key, what, json_type_name (member));
      return FALSE;
    }

  *node = member;
  return TRUE;
}

/* Reads @arg of @tool from @args into @value: NULL, or an error result the
 * model can act on. */
static PdToolResult *
read_arg (JsonObject      *args,
          const char      *tool,
          const PdToolArg *arg,
          PdToolValue     *value)
{
  PdToolResult *error_result = NULL;
  JsonNode *node = json_object_get_member (args, arg->key);
  GType type;
  double d;
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  switch (arg->type)
    {
    case PD_TOOL_ARG_STRING:
      value->string = NULL;
      if (!optional_member (args, tool, arg->key, G_TYPE_STRING, "a string", &node, &error_result))
        return error_result;
      if (node == NULL && arg->required)
        return pd_tool_result_new_printf (FALSE, "%s: missing '%s' (a string)", tool, arg->key);
      if (node != NULL)
        value->string = json_node_get_string (node);
      return NULL;

    case PD_TOOL_ARG_BOOL:
      value->boolean = FALSE;
      if (!optional_member (args, tool, arg->key, G_TYPE_BOOLEAN, "true or false", &node, &error_result))
        return error_result;
      if (node != NULL)
        value->boolean = json_node_get_boolean (node);
      return NULL;

    case PD_TOOL_ARG_INT:
      value->integer = arg->fallback;
      if (node == NULL || JSON_NODE_HOLDS_NULL (node))
        return NULL;

      type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
      if (type == G_TYPE_INT64)
        {
          value->integer = CLAMP (json_node_get_int (node), arg->min, arg->max);
          return NULL;
        }
      if (type != G_TYPE_DOUBLE)
        return pd_tool_result_new_printf (FALSE, "%s: '%s' must be a whole number, got %s",
                                          tool, arg->key, json_type_name (node));

      /* Models write 10.0 for 10 often enough to accept whole doubles.  They
       * are held at the bounds as doubles: casting one beyond gint64 (1e300)
       * to an integer is undefined behaviour. */
      d = json_node_get_double (node);
      if (!isfinite (d) || floor (d) != d)
        return pd_tool_result_new_printf (FALSE, "%s: '%s' must be a whole number, got %s",
                                          tool, arg->key, g_ascii_dtostr (text, sizeof text, d));
      value->integer = d <= (double) arg->min ? arg->min : d >= (double) arg->max ? arg->max : (gint64) d;
      return NULL;

    default:
      g_assert_not_reached ();
    }
}

PdToolResult *
_pd_tool_read_args (const PdToolInfo *info,
                    JsonObject       *args,
                    PdToolValue      *values)
{
  PdToolResult *error_result = NULL;

  for (guint i = 0; i < PD_TOOL_MAX_ARGS && info->args[i].key != NULL && error_result == NULL; i++)
    error_result = read_arg (args, info->name, &info->args[i], &values[i]);

  return error_result;
}

void
_pd_tool_file_clear (PdToolFile *file)
{
  file->tool = NULL;
  g_clear_pointer (&file->resolved, g_free);
  g_clear_pointer (&file->display, g_free);
}

PdToolResult *
_pd_tool_resolve (PdToolContext  *context,
                  const char     *tool,
                  const char     *path,
                  PdToolFile     *file)
{
  g_autoptr(GError) error = NULL;
  char *resolved = pd_tool_context_resolve_path (context, path, &error);
  const char *approved;

  if (resolved == NULL)
    return pd_tool_result_new_printf (FALSE, "%s: %s", tool, error->message);

  /* Where the path led when the call was let through is where it must
   * lead now: a link planted meanwhile is refused, not followed. */
  approved = pd_tool_context_get_approved_path (context);
  if (approved != NULL && strcmp (approved, resolved) != 0)
    {
      g_autofree char *now = pd_tool_context_display_path (context, resolved);
      g_autofree char *was = *approved != '\0' ? pd_tool_context_display_path (context, approved)
                                               : g_strdup ("nothing");
      PdToolResult *refused =
        pd_tool_result_new_printf (FALSE, "%s: the path now leads to '%s', not to '%s' where it led when "
                                          "the call was let through (a link changed meanwhile): not done",
                                   tool, now, was);

      g_free (resolved);
      return refused;
    }

  file->tool = tool;
  file->resolved = resolved;
  file->display = pd_tool_context_display_path (context, resolved);

  return NULL;
}

/* Text means valid UTF-8 without NUL bytes: the model can only read text,
 * and a NUL would silently cut a C string short. */
gboolean
_pd_tool_is_text (const char *data,
                  gsize       length)
{
  if (memchr (data, '\0', length) != NULL)
    return FALSE;

  return g_utf8_validate (data, length, NULL);
}
