/* pd-redact.c: secrets out of text before it is stored. */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"

/* What a secret value may be made of: never quotes, backslashes, brackets,
 * braces, parentheses, separators or whitespace.  That is what keeps a
 * redacted JSON string or a rendered plan line intact. */
#define VALUE_CHARS "[^\\s\"'`\\\\\\[\\]{}()<>,;&|]"

/* One pattern with named alternatives, compiled once: a single pass over the
 * text whatever the number of secret kinds. */
static const char pattern[] =
  /* PEM private key: the body may hold JSON-escaped newlines but never a
   * quote, so a match cannot cross out of a JSON string. */
  "(?<pem>-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[^\"]{0,16384}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)"
  "|(?<bearer>(?i:\\bbearer)\\s+)(?<btoken>[A-Za-z0-9\\-._~+/]{8,}=*)"
  "|(?<assign>(?i:(?<![A-Za-z0-9_\\-])(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|"
    "token|access[_-]?token|refresh[_-]?token|auth[_-]?token|api[_-]?key|apikey|private[_-]?key))"
    "(?:\\\\?[\"'])?\\s*[=:]\\s*(?:\\\\?[\"'])?)(?<avalue>" VALUE_CHARS "+)"
  "|(?<key>(?<![A-Za-z0-9_\\-])(?:"
    "sk-ant-[A-Za-z0-9_\\-]{20,}"
    "|sk-(?:proj-)?[A-Za-z0-9_\\-]{20,}"
    "|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}"
    "|github_pat_[A-Za-z0-9_]{22,}"
    "|(?:AKIA|ASIA)[A-Z0-9]{16}"
    "|xox[abposr]-[A-Za-z0-9\\-]{10,}"
    "|AIza[A-Za-z0-9_\\-]{35}"
    "|(?:sk|rk)_live_[A-Za-z0-9]{16,}"
    "|hf_[A-Za-z0-9]{30,}"
  ")(?![A-Za-z0-9_\\-]))";

static GRegex *
get_regex (void)
{
  static gsize once = 0;
  static GRegex *regex = NULL;

  if (g_once_init_enter (&once))
    {
      g_autoptr(GError) error = NULL;

      regex = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, &error);
      /* The pattern is a constant: failing to compile is a bug, not input. */
      g_assert_no_error (error);
      g_once_init_leave (&once, 1);
    }

  return regex;
}

static gboolean
group_matched (const GMatchInfo *info,
               const char       *name)
{
  int start = -1, end = -1;

  return g_match_info_fetch_named_pos (info, name, &start, &end) && start >= 0 && end > start;
}

static gboolean
replace_cb (const GMatchInfo *info,
            GString          *out,
            gpointer          user_data)
{
  guint *count = user_data;

  if (group_matched (info, "bearer"))
    {
      g_autofree char *word = g_match_info_fetch_named (info, "bearer");
      g_string_append (out, word);
    }
  else if (group_matched (info, "assign"))
    {
      g_autofree char *key = g_match_info_fetch_named (info, "assign");
      g_string_append (out, key);
    }
  g_string_append (out, PD_REDACTED);
  (*count)++;

  return FALSE;
}

/* Whether @text starts with @word, ASCII case-insensitively. */
static inline gboolean
starts_with_ci (const char *text,
                const char *word)
{
  for (; *word; text++, word++)
    if (g_ascii_tolower (*text) != *word)
      return FALSE;
  return TRUE;
}

/* Cheap screen, one pass: every pattern contains one of these literals
 * (the key prefixes, a PEM header, or an assignment word or Bearer in any
 * case), and most transcript text has none, so it skips the regex engine.
 * This runs on every message saved, so it must stay a single scan. */
static gboolean
may_contain_secret (const char *text)
{
  for (const char *p = text; *p; p++)
    {
      switch (*p)
        {
        case '-':
          if (strncmp (p, "-----BEGIN", 10) == 0)
            return TRUE;
          break;
        case 's':
        case 'r':
          if (p[1] == 'k' && (p[2] == '-' || p[2] == '_'))
            return TRUE;   /* sk-, sk_, rk_ (and rk- costs nothing) */
          break;
        case 'g':
          if (p[1] == 'h' && p[2] != '\0' && strchr ("pousr", p[2]) != NULL && p[3] == '_')
            return TRUE;
          if (strncmp (p, "github_pat_", 11) == 0)
            return TRUE;
          break;
        case 'A':
          if (strncmp (p, "AKIA", 4) == 0 || strncmp (p, "ASIA", 4) == 0 || strncmp (p, "AIza", 4) == 0)
            return TRUE;
          break;
        case 'x':
          if (p[1] == 'o' && p[2] == 'x')
            return TRUE;
          break;
        case 'h':
          if (p[1] == 'f' && p[2] == '_')
            return TRUE;
          break;
        default:
          break;
        }

      switch (g_ascii_tolower (*p))
        {
        case 'p':
          if (starts_with_ci (p, "pass") || starts_with_ci (p, "pwd"))
            return TRUE;
          break;
        case 's':
          if (starts_with_ci (p, "secret"))
            return TRUE;
          break;
        case 't':
          if (starts_with_ci (p, "token"))
            return TRUE;
          break;
        case 'k':
          if (starts_with_ci (p, "key"))
            return TRUE;
          break;
        case 'b':
          if (starts_with_ci (p, "bearer"))
            return TRUE;
          break;
        default:
          break;
        }
    }

  return FALSE;
}

char *
pd_redact (const char *text,
           guint      *n_redacted)
{
  g_autoptr(GError) error = NULL;
  guint count = 0;
  char *result;

  if (n_redacted)
    *n_redacted = 0;
  if (text == NULL)
    return NULL;
  if (!may_contain_secret (text))
    return g_strdup (text);

  result = g_regex_replace_eval (get_regex (), text, -1, 0, 0, replace_cb, &count, &error);
  if (result == NULL)
    {
      /* Invalid UTF-8 or a match limit: store nothing of it rather than a
       * secret. */
      g_warning ("redaction failed, dropping the text: %s", error->message);
      count = 1;
      result = g_strdup (PD_REDACTED);
    }

  if (n_redacted)
    *n_redacted = count;
  return result;
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
          json_object_set_member (copy, l->data,
                                  redact_copy (json_object_get_member (object, l->data), total));
        return json_node_init_object (json_node_alloc (), copy);
      }

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        {
          guint n = 0;
          g_autofree char *redacted = pd_redact (json_node_get_string (node), &n);

          *total += n;
          return json_node_init_string (json_node_alloc (), redacted);
        }
      return json_node_copy (node);

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
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
