/* pd-secret-text.c: keys and tokens that leave no copy behind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-secret-text"

#include "config.h"

#include <string.h>

#include "pd-secret-text.h"

/**
 * pd_secret_text_wipe:
 * @text: (nullable): a key or token
 *
 * Overwrites @text with zero bytes, in a way the compiler keeps
 * (explicit_bzero(): a memset() before free() may be dropped as a dead
 * store).
 */
void
pd_secret_text_wipe (char *text)
{
  if (text != NULL)
    explicit_bzero (text, strlen (text));
}

/**
 * pd_secret_text_free:
 * @text: (nullable) (transfer full): a key or token
 *
 * Wipes @text (pd_secret_text_wipe()), then frees it.
 */
void
pd_secret_text_free (char *text)
{
  pd_secret_text_wipe (text);
  g_free (text);
}

/**
 * pd_secret_text_replace:
 * @field: where a key is kept
 * @value: (nullable): the new key; %NULL or "" for none
 *
 * Replaces the key in @field with a copy of @value, wiping the old one.
 */
void
pd_secret_text_replace (char       **field,
                        const char  *value)
{
  char *copy = value != NULL && *value != '\0' ? g_strdup (value) : NULL;

  pd_secret_text_free (*field);
  *field = copy;
}

/* The registered values, longest first (a key that holds another is
 * replaced whole), each also as a JSON string spells it, counted: a value
 * is wiped once the last holder (a provider) gives it back, so the registry
 * keeps no copy of a key past the objects that hold it anyway. */
typedef struct
{
  char  *value;
  guint  holders;
} Entry;

static GMutex     registry_lock;
static GPtrArray *registry;

static int
longest_first (gconstpointer a,
               gconstpointer b)
{
  gsize la = strlen ((*(Entry * const *) a)->value);
  gsize lb = strlen ((*(Entry * const *) b)->value);

  return la < lb ? 1 : la > lb ? -1 : 0;
}

static void
change_one (const char *value,
            gboolean    add)
{
  for (guint i = 0; i < registry->len; i++)
    {
      Entry *entry = g_ptr_array_index (registry, i);

      if (strcmp (entry->value, value) != 0)
        continue;
      if (add)
        entry->holders++;
      else if (--entry->holders == 0)
        {
          pd_secret_text_free (entry->value);
          g_free (entry);
          g_ptr_array_remove_index (registry, i);
        }
      return;
    }
  if (add)
    {
      Entry *entry = g_new0 (Entry, 1);

      entry->value = g_strdup (value);
      entry->holders = 1;
      g_ptr_array_add (registry, entry);
    }
}

static void
change (const char *value,
        gboolean    add)
{
  g_autoptr(GString) escaped = NULL;

  if (value == NULL || strlen (value) < PD_SECRET_TEXT_MIN_LENGTH)
    return;

  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_ptr_array_new ();
  change_one (value, add);
  /* In stored JSON text a quote or backslash of the key is escaped. */
  if (strpbrk (value, "\\\"") != NULL)
    {
      escaped = g_string_new (NULL);
      for (const char *p = value; *p != '\0'; p++)
        {
          if (*p == '"' || *p == '\\')
            g_string_append_c (escaped, '\\');
          g_string_append_c (escaped, *p);
        }
      change_one (escaped->str, add);
      explicit_bzero (escaped->str, escaped->len);
    }
  g_ptr_array_sort (registry, longest_first);
  g_mutex_unlock (&registry_lock);
}

/**
 * pd_secret_text_register:
 * @value: (nullable): a key, password or token this process holds
 *
 * From now on, until as many pd_secret_text_unregister() calls,
 * pd_secret_text_mask() replaces @value wherever it appears: a server or
 * a model that echoes the key (in an answer, an error body) leaves no copy
 * of it in what is stored or printed, whatever its shape.  Values shorter
 * than %PD_SECRET_TEXT_MIN_LENGTH are not hunted (a local server's
 * "ollama" would blank that word in every transcript).
 */
void
pd_secret_text_register (const char *value)
{
  change (value, TRUE);
}

/**
 * pd_secret_text_unregister:
 * @value: (nullable): a value given to pd_secret_text_register()
 *
 * Gives @value back; the registry's copy is wiped with the last.
 */
void
pd_secret_text_unregister (const char *value)
{
  change (value, FALSE);
}

static void
change_url (const char *url,
            gboolean    add)
{
  g_autoptr(GUri) uri = NULL;
  const char *parts[2];

  if (url == NULL || (uri = g_uri_parse (url, G_URI_FLAGS_ENCODED | G_URI_FLAGS_HAS_PASSWORD, NULL)) == NULL)
    return;

  {
    const char *userinfo[] = { g_uri_get_user (uri), g_uri_get_password (uri) };

    for (guint i = 0; i < G_N_ELEMENTS (userinfo); i++)
      {
        g_autofree char *decoded = userinfo[i] != NULL ? g_uri_unescape_string (userinfo[i], NULL) : NULL;

        change (userinfo[i], add);
        if (g_strcmp0 (decoded, userinfo[i]) != 0)
          change (decoded, add);
      }
  }

  parts[0] = g_uri_get_query (uri);
  parts[1] = g_uri_get_fragment (uri);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_auto(GStrv) params = parts[i] != NULL ? g_strsplit (parts[i], "&", -1) : NULL;

      for (guint j = 0; params != NULL && params[j] != NULL; j++)
        {
          const char *equals = strchr (params[j], '=');
          g_autofree char *decoded = NULL;

          if (equals == NULL)
            continue;
          decoded = g_uri_unescape_string (equals + 1, NULL);
          change (equals + 1, add);
          if (g_strcmp0 (decoded, equals + 1) != 0)
            change (decoded, add);
        }
    }
}

/**
 * pd_secret_text_register_url:
 * @url: (nullable): a URL this process was given (a provider's base URL)
 *
 * Registers what of @url is secret: the user and password of its
 * userinfo, and the values of its query and fragment parameters, as typed
 * and decoded.
 */
void
pd_secret_text_register_url (const char *url)
{
  change_url (url, TRUE);
}

/**
 * pd_secret_text_unregister_url:
 * @url: (nullable): a URL given to pd_secret_text_register_url()
 */
void
pd_secret_text_unregister_url (const char *url)
{
  change_url (url, FALSE);
}

/**
 * pd_secret_text_mask:
 * @text: (nullable): text to store or print
 * @n_masked: (out) (optional): how many values were replaced
 *
 * A copy of @text with every registered value replaced by "[REDACTED]".
 */
char *
pd_secret_text_mask (const char *text,
                     guint      *n_masked)
{
  GString *out = NULL;
  guint total = 0;
  gboolean any = FALSE;

  if (n_masked != NULL)
    *n_masked = 0;
  if (text == NULL)
    return NULL;

  g_mutex_lock (&registry_lock);
  for (guint i = 0; registry != NULL && i < registry->len && !any; i++)
    any = strstr (text, ((Entry *) g_ptr_array_index (registry, i))->value) != NULL;
  /* Written afresh, never replaced in place: a buffer that held the key
   * and shrank would keep its bytes past the end, freed unwiped. */
  if (any)
    {
      const char *p = text;

      out = g_string_sized_new (strlen (text));
      while (*p != '\0')
        {
          gsize matched = 0;

          for (guint i = 0; i < registry->len && matched == 0; i++)
            {
              const char *value = ((Entry *) g_ptr_array_index (registry, i))->value;
              gsize length = strlen (value);

              if (*p == *value && strncmp (p, value, length) == 0)
                matched = length;
            }
          if (matched > 0)
            {
              g_string_append (out, "[REDACTED]");
              p += matched;
              total++;
            }
          else
            g_string_append_c (out, *p++);
        }
    }
  g_mutex_unlock (&registry_lock);

  if (n_masked != NULL)
    *n_masked = total;
  return out != NULL ? g_string_free (out, FALSE) : g_strdup (text);
}

/**
 * pd_secret_text_shown_url:
 * @url: a URL
 *
 * @url as messages show it: without its userinfo, query and fragment,
 * where passwords and tokens ride.
 */
char *
pd_secret_text_shown_url (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;

  if (uri == NULL)
    return g_strdup ("(invalid URL)");
  return g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO | G_URI_HIDE_QUERY | G_URI_HIDE_FRAGMENT);
}
