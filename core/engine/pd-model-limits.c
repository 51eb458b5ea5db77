/* pd-model-limits.c: how much a model may write in one answer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pd-model-limits.h"

/* What one answer may use when nothing else is said: enough for a long
 * file or a long report, far below what the newer families can write, so
 * a runaway answer does not run for a quarter of an hour.  A tool call cut
 * by it is asked again up to the family's ceiling. */
#define ANSWER_TOKENS 16384
/* A server that speaks the Messages API but is not Claude. */
#define OTHER_MESSAGES_TOKENS 8192

typedef struct
{
  char family[16];   /* opus, sonnet, haiku, …; "" when the name has none */
  int  major;
  int  minor;        /* -1: none */
} ClaudeName;

/* A number of at most two digits: a version, not a date (20250514). */
static gboolean
small_number (const char *token,
              int        *out)
{
  gsize len = strlen (token);

  if (len == 0 || len > 2 || !g_ascii_isdigit (token[0]) || (len == 2 && !g_ascii_isdigit (token[1])))
    return FALSE;
  *out = atoi (token);
  return TRUE;
}

/* "claude-3-5-sonnet-20241022", "claude-sonnet-4-5", "anthropic.claude-opus-4-1-v1:0",
 * "claude-opus-4-20250514": the family and its version, whichever order. */
static gboolean
parse_claude (const char *model,
              ClaudeName *name)
{
  const char *start = model ? strstr (model, "claude-") : NULL;
  g_auto(GStrv) tokens = NULL;
  guint n;

  memset (name, 0, sizeof *name);
  name->minor = -1;
  if (start == NULL)
    return FALSE;

  tokens = g_strsplit_set (start + strlen ("claude-"), "-.:@", 6);
  n = g_strv_length (tokens);
  if (n == 0)
    return FALSE;

  if (small_number (tokens[0], &name->major))
    {
      /* The 3.x naming: claude-MAJOR[-MINOR]-FAMILY. */
      guint next = 1;

      if (n > 1 && small_number (tokens[1], &name->minor))
        next = 2;
      if (next < n)
        g_strlcpy (name->family, tokens[next], sizeof name->family);
      return TRUE;
    }

  /* The 4.x naming: claude-FAMILY-MAJOR[-MINOR]. */
  g_strlcpy (name->family, tokens[0], sizeof name->family);
  if (n < 2 || !small_number (tokens[1], &name->major))
    return TRUE;   /* a family without a version: taken as a current one */
  if (n > 2)
    small_number (tokens[2], &name->minor);
  return TRUE;
}

static void
claude_limits (const char    *model,
               PdModelLimits *limits)
{
  ClaudeName name;

  if (!parse_claude (model, &name))
    {
      limits->default_tokens = OTHER_MESSAGES_TOKENS;
      limits->ceiling_tokens = 0;
      return;
    }

  limits->default_tokens = ANSWER_TOKENS;
  limits->ceiling_tokens = 64000;

  if (name.major == 3)
    {
      if (name.minor == 7)
        limits->ceiling_tokens = 64000;
      else if (name.minor == 5)
        limits->default_tokens = limits->ceiling_tokens = 8192;
      else
        limits->default_tokens = limits->ceiling_tokens = 4096;
      return;
    }

  if (name.major == 4 && g_str_equal (name.family, "opus") && name.minor <= 1)
    limits->ceiling_tokens = 32000;                      /* Opus 4 and 4.1 */
  else if (name.major == 4 && name.minor >= 6)
    limits->ceiling_tokens = 128000;                     /* the 4.6 families and later */
  else if (name.major >= 5)
    limits->ceiling_tokens = 128000;

  /* Opus 4.7 and the families after 4 take only adaptive thinking. */
  limits->adaptive_only = name.major >= 5 || (name.major == 4 && g_str_equal (name.family, "opus") && name.minor >= 7);
}

static void
openai_limits (const char    *model,
               PdModelLimits *limits)
{
  const char *name = model ? model : "";
  const char *slash = strrchr (name, '/');

  if (slash != NULL)
    name = slash + 1;   /* "openai/gpt-4o" through a router */

  /* The server's own default is the model's whole output there, so
   * nothing is asked unless a profile says so; the ceiling is only for
   * asking again after a cut tool call. */
  limits->default_tokens = 0;
  if (g_str_has_prefix (name, "gpt-4o") || g_str_has_prefix (name, "chatgpt-4o"))
    limits->ceiling_tokens = 16384;
  else if (g_str_has_prefix (name, "gpt-4.1"))
    limits->ceiling_tokens = 32768;
  else if (g_str_has_prefix (name, "gpt-5"))
    limits->ceiling_tokens = 128000;
  else if (g_str_has_prefix (name, "o1") || g_str_has_prefix (name, "o3") || g_str_has_prefix (name, "o4"))
    limits->ceiling_tokens = 100000;
  else
    limits->ceiling_tokens = 0;
}

/**
 * pd_model_limits_lookup:
 * @provider_name: "anthropic", "openai" or another provider
 *
 * The output limits of @model's family, as its provider speaks of it.
 */
void
pd_model_limits_lookup (const char    *provider_name,
                        const char    *model,
                        PdModelLimits *limits)
{
  g_return_if_fail (limits != NULL);

  memset (limits, 0, sizeof *limits);
  if (g_strcmp0 (provider_name, "anthropic") == 0)
    claude_limits (model, limits);
  else if (g_strcmp0 (provider_name, "openai") == 0)
    openai_limits (model, limits);
}

/* What one answer may use: the profile's own limit when it sets one (held
 * to the family's ceiling when that is known), else the family's. */
guint
pd_model_limits_answer (const PdModelLimits *limits,
                        guint                configured)
{
  if (configured == 0)
    return limits->default_tokens;
  if (limits->ceiling_tokens > 0)
    return MIN (configured, limits->ceiling_tokens);
  return configured;
}

/* The limit to ask again with after an answer was cut at @used: the
 * family's ceiling, twice @used when the ceiling is not known, or 0 when
 * there is nothing higher to ask for. */
guint
pd_model_limits_raise (const PdModelLimits *limits,
                       guint                used)
{
  /* Nothing was asked: the server gave what it gives, and knows better. */
  if (used == 0)
    return 0;
  if (limits->ceiling_tokens > 0)
    return limits->ceiling_tokens > used ? limits->ceiling_tokens : 0;
  if (used <= G_MAXUINT / 2)
    return used * 2;
  return 0;
}
