/* pd-redact-json.c: secrets out of JSON documents before they are stored.
 *
 * Every string of a document, and every member's name, goes through
 * pd_redact(); a member whose name is secret-like has its value masked
 * whole.  A string that holds a document of its own, or \u escapes, is
 * read as what it spells, since the text alone does not show that.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-redact.h"
#include "pd-redact-private.h"

/* Where an id is scanned from, at most (see redact_id()). */
#define ID_MAX_STARTS 64

static JsonNode *redact_copy (JsonNode *node, guint *total);

/* Members that name a tool call or another record: what refers to it
 * repeats the value (tool_calls[].id, tool_call_id, an event's call_id). */
static gboolean
is_id_member (const char *name)
{
  static const char * const names[] = {
    "id", "call_id", "tool_call_id", "tool_use_id", "callId", "toolCallId", "toolUseId",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* An id that holds a secret, also glued after a prefix of the agent's
 * (tu_0_ghp_…: the _ before ghp_ is a word's, so the text's scan reads no
 * token there; tried as an attacker would).  Masked whole, to the same
 * replacement wherever the id is, so what refers to it still matches,
 * and two ids stay two: "redacted_" and 16 hex digits of its SHA-256
 * (letters, digits and _, as providers take a call's id).  NULL when it
 * holds none. */
static char *
redact_id (const char *id)
{
  gsize len;
  gboolean secret = FALSE;
  guint starts = 0;

  if (id == NULL)
    return NULL;
  len = strlen (id);

  /* Each place a word could start is scanned from; an id with more
   * places than any agent's has (a bound on the work) is masked too. */
  for (gsize i = 0; i < len && !secret; i++)
    if (i == 0 || !g_ascii_isalnum (id[i - 1]))
      {
        guint found = 0;
        g_autofree char *masked = NULL;

        if (++starts > ID_MAX_STARTS)
          {
            secret = TRUE;
            break;
          }
        masked = pd_redact (id + i, &found);
        secret = found > 0;
      }
  if (!secret)
    return NULL;
  {
    g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, id, -1);

    return g_strdup_printf ("redacted_%.16s", sum);
  }
}

/* Text with \uXXXX escapes that is no JSON document (a call's arguments
 * cut short, or with trailing data): a key spelled in escapes there passed
 * every redaction (tried as an attacker would).  The escapes of printable
 * characters other than a quote or a backslash are read as their
 * characters, and the text redacted so; it replaces the text only when
 * something was masked.  NULL otherwise. */
static char *
redact_unescaped (const char *text,
                  guint      *n)
{
  g_autoptr(GString) plain = NULL;
  const char *p;

  if (strstr (text, "\\u") == NULL && strstr (text, "\\U") == NULL)
    return NULL;
  plain = g_string_sized_new (strlen (text));
  for (p = text; *p != '\0'; p++)
    {
      gunichar c = 0;
      gboolean hex = p[0] == '\\' && (p[1] == 'u' || p[1] == 'U');

      for (guint i = 2; hex && i < 6; i++)
        {
          if (!g_ascii_isxdigit (p[i]))
            hex = FALSE;
          else
            c = (c << 4) | (gunichar) g_ascii_xdigit_value (p[i]);
        }
      if (hex && c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && g_unichar_validate (c) &&
          !(c >= 0xd800 && c <= 0xdfff))
        {
          g_string_append_unichar (plain, c);
          p += 5;
        }
      else
        g_string_append_c (plain, *p);
    }
  {
    guint found = 0;
    g_autofree char *redacted = pd_redact (plain->str, &found);

    if (found == 0)
      return NULL;
    *n = found;
    return g_steal_pointer (&redacted);
  }
}

/* A string that holds a JSON document (a tool call's arguments are one):
 * its text may spell a secret in \u escapes ("\u0073k-proj-…"), which the
 * text alone does not show (tried as an attacker would: a model that had
 * seen the key wrote it so into a call, and it was stored so).  The
 * document is redacted as values, and written again only when something
 * was; NULL when it holds no document or nothing to redact. */
static JsonNode *
redact_json_in_string (const char *text,
                       guint      *n)
{
  g_autoptr(JsonNode) inner = NULL;
  g_autoptr(JsonNode) cleaned = NULL;
  const char *p = text;

  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p != '{' && *p != '[')
    return NULL;
  inner = pd_json_from_string_bounded (text, NULL);
  if (inner == NULL || !(JSON_NODE_HOLDS_OBJECT (inner) || JSON_NODE_HOLDS_ARRAY (inner)))
    return NULL;
  *n = 0;
  cleaned = redact_copy (inner, n);
  if (*n == 0)
    return NULL;
  {
    g_autofree char *written = pd_json_to_string (cleaned, FALSE);

    return json_node_init_string (json_node_alloc (), written);
  }
}

static JsonNode *
redact_copy (JsonNode *node,
             guint    *total)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint len = json_array_get_length (array);
        g_autoptr(JsonArray) copy = json_array_sized_new (len);

        for (guint i = 0; i < len; i++)
          json_array_add_element (copy, redact_copy (json_array_get_element (array, i), total));
        return json_node_init_array (json_node_alloc (), copy);
      }

    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        JsonObject *object = json_node_get_object (node);
        /* get_members keeps the document order; the iterator does not. */
        g_autoptr(GList) names = json_object_get_members (object);

        for (GList *l = names; l; l = l->next)
          {
            JsonNode *member = json_object_get_member (object, l->data);

            if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING
                && is_id_member (l->data))
              {
                g_autofree char *masked_id = redact_id (json_node_get_string (member));

                if (masked_id != NULL)
                  {
                    json_object_set_string_member (copy, l->data, masked_id);
                    (*total)++;
                    continue;
                  }
              }
            /* {"DB_PASSWORD": "x"}: the member name is the assignment's
             * name, which the text of the value alone does not show. */
            if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING
                && json_node_get_string (member)[0] != '\0'
                && _pd_redact_name_is_secret (l->data) && _pd_redact_value_is_secret (json_node_get_string (member), FALSE)
                && !_pd_redact_value_is_pass_count (l->data, json_node_get_string (member))
                && !_pd_redact_value_hides_syntax (json_node_get_string (member), strlen (json_node_get_string (member)),
                                                    QUOTING_NONE, 0))
              {
                json_object_set_string_member (copy, l->data, PD_REDACTED);
                (*total)++;
                continue;
              }
            {
              guint n_name = 0;
              /* A member's name is anyone's text too: {"sk-proj-…": 1}. */
              g_autofree char *name = pd_redact (l->data, &n_name);

              *total += n_name;
              json_object_set_member (copy, name, redact_copy (member, total));
            }
          }
        return json_node_init_object (json_node_alloc (), copy);
      }

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        {
          guint n = 0;
          g_autofree char *redacted = NULL;
          JsonNode *inner_redacted = redact_json_in_string (json_node_get_string (node), &n);

          if (inner_redacted != NULL)
            {
              *total += n;
              return inner_redacted;
            }
          redacted = pd_redact (json_node_get_string (node), &n);
          if (n == 0)
            {
              g_autofree char *unescaped = redact_unescaped (json_node_get_string (node), &n);

              if (unescaped != NULL)
                {
                  g_free (redacted);
                  redacted = g_steal_pointer (&unescaped);
                }
            }

          *total += n;
          return json_node_init_string (json_node_alloc (), redacted);
        }
      return json_node_copy (node);

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

char *
pd_redact_id (const char *id,
              guint      *n_redacted)
{
  char *masked = redact_id (id);

  if (n_redacted)
    *n_redacted = masked != NULL ? 1 : 0;
  return masked != NULL ? masked : g_strdup (id);
}

JsonNode *
pd_redact_node (JsonNode *node,
                guint    *n_redacted)
{
  guint total = 0;
  JsonNode *copy;

  if (node == NULL)
    {
      if (n_redacted)
        *n_redacted = 0;
      return NULL;
    }
  copy = redact_copy (node, &total);
  if (n_redacted)
    *n_redacted = total;
  return copy;
}

char *
pd_redact_json (const char *json,
                guint      *n_redacted)
{
  g_autoptr(JsonNode) parsed = NULL;
  g_autoptr(JsonNode) redacted = NULL;
  char *out;

  g_return_val_if_fail (json != NULL, NULL);

  /* Not JSON: the text is all there is to redact. */
  if (!(parsed = pd_json_from_string_bounded (json, NULL)))
    return pd_redact (json, n_redacted);
  redacted = pd_redact_node (parsed, n_redacted);
  out = pd_json_to_string (redacted, FALSE);
  /* json-glib reads a lone surrogate escape ("\udefa") as bytes that are
   * no UTF-8, and writes them so: the document's text, redacted as text,
   * stays valid (found by fuzz-redact). */
  if (out != NULL && !g_utf8_validate (out, -1, NULL) && g_utf8_validate (json, -1, NULL))
    {
      g_free (out);
      return pd_redact (json, n_redacted);
    }
  return out;
}
