/* pd-codex-literal.c: Codex's code mode — the one tools.update_plan({...})
 * call of an exec script, its JavaScript object literal turned into JSON.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include "pd-json.h"

#include <string.h>

#include "pd-codex-reader.h"
#include "pd-import-private.h"

#define LITERAL_MAX_DEPTH 32

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
  if (pd_json_nesting_exceeds (out->str, (gssize) out->len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      _pd_import_too_many_values (out->str, out->len) ||
      !json_parser_load_from_data (parser, out->str, (gssize) out->len, NULL))
    return NULL;
  return json_node_copy (json_parser_get_root (parser));
}
