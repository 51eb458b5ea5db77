/* test-redact-bash-util.h: real bash run on commands and on their masked
 * texts, the commands each would run compared.
 *
 * The quote readings of the attack harness (unquoted_signs()) are this
 * project's own model of bash; a mask that hid a command bash runs
 * ($'\c'TOKEN$(touch x)' y': the model and the redactor read \c' alike,
 * bash does not) passed them.  So bash itself is asked: each text is run
 * with an empty PATH, in a folder of its own, stdin from /dev/null, and a
 * command_not_found_handle that writes down each command name it is asked
 * for; every name the original runs must be asked for by its masked text
 * too (the same name, or the name with a secret of its own masked:
 * "API_KEY"=X is no assignment to bash but a command's name).  All the
 * texts of a table are run by one bash, each text in a subshell of its
 * own (eval of the text, given as an argument: a syntax error or an
 * exit ends that text only; one fork a text),
 * as a process for each was too slow on a loaded machine.  Without bash
 * (it is on CI) the check is skipped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pd-redact.h"

/* Whether bash's @name is @masked_name, or @masked_name with each
 * [REDACTED] standing for some of @name's bytes. */
static inline gboolean
bash_name_is_masked (const char *name,
                     const char *masked_name)
{
  g_auto(GStrv) pieces = NULL;
  const char *at = name;
  guint n;

  if (strstr (masked_name, PD_REDACTED) == NULL)
    return g_str_equal (name, masked_name);
  pieces = g_strsplit (masked_name, PD_REDACTED, -1);
  n = g_strv_length (pieces);
  if (!g_str_has_prefix (name, pieces[0]) || !g_str_has_suffix (name, pieces[n - 1]))
    return FALSE;
  at += strlen (pieces[0]);
  for (guint i = 1; i + 1 < n; i++)
    {
      const char *found = strstr (at + 1, pieces[i]);

      if (found == NULL)
        return FALSE;
      at = found + strlen (pieces[i]);
    }
  return strlen (at) > strlen (pieces[n - 1]);
}

/* The command names bash looks up when it runs each of @texts (@n), one
 * a line, each text's in its own string. */
static inline GStrv
bash_command_names_all (const char * const *texts,
                        gsize               n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *bash = g_find_program_in_path ("bash");
  g_autofree char *dir = NULL;
  g_autofree char *nothing = NULL;
  GStrv names = g_new0 (char *, n + 1);

  if (bash == NULL)
    return names;
  dir = g_dir_make_tmp ("pd-bash-XXXXXX", &error);
  g_assert_no_error (error);
  nothing = g_build_filename (dir, "no-such-folder", NULL);
  g_ptr_array_add (argv, g_strdup (bash));
  g_ptr_array_add (argv, g_strdup ("--norc"));
  g_ptr_array_add (argv, g_strdup ("--noprofile"));
  g_ptr_array_add (argv, g_strdup ("-c"));
  g_ptr_array_add (argv, g_strdup ("command_not_found_handle () { printf '%s\\n' \"$1\" >> \"$PD_NAMES\"; return 127; }\n"
                                   "n=0; for t; do PD_NAMES=names-$n; n=$((n + 1)); (eval \"$t\") < /dev/null > /dev/null 2>&1; done\n"));
  g_ptr_array_add (argv, g_strdup ("bash"));
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (argv, g_strdup (texts[i]));
  g_ptr_array_add (argv, NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_environ (launcher, NULL);
  g_subprocess_launcher_setenv (launcher, "PATH", nothing, TRUE);
  g_subprocess_launcher_setenv (launcher, "HOME", dir, TRUE);
  g_subprocess_launcher_set_cwd (launcher, dir);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *base = g_strdup_printf ("names-%" G_GSIZE_FORMAT, i);
      g_autofree char *log = g_build_filename (dir, base, NULL);

      if (!g_file_get_contents (log, &names[i], NULL, NULL))
        names[i] = g_strdup ("");
    }
  /* what the texts wrote there (> file) goes with the folder */
  {
    g_autoptr(GFile) top = g_file_new_for_path (dir);
    g_autoptr(GFileEnumerator) each = g_file_enumerate_children (top, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
    GFileInfo *info;

    while (each != NULL && (info = g_file_enumerator_next_file (each, NULL, NULL)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir, g_file_info_get_name (info), NULL);

        g_remove (path);
        g_object_unref (info);
      }
  }
  g_rmdir (dir);
  return names;
}

/* For each of @texts (@n): every command bash runs in it is run by bash
 * in pd_redact() of it. */
static inline void
assert_bash_runs_in_masked_all (const char * const *texts,
                                gsize               n)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) names = NULL;

  g_autoptr(GPtrArray) originals = g_ptr_array_new ();

  /* a text redaction left as it was runs what it ran */
  for (gsize i = 0; i < n; i++)
    {
      char *masked = pd_redact (texts[i], NULL);

      if (g_str_equal (masked, texts[i]))
        {
          g_free (masked);
          continue;
        }
      g_ptr_array_add (originals, (gpointer) texts[i]);
      g_ptr_array_add (all, masked);
    }
  n = originals->len;
  if (n == 0)
    return;
  for (gsize i = 0; i < n; i++)
    g_ptr_array_insert (all, (gint) i, g_strdup (originals->pdata[i]));
  texts = (const char * const *) originals->pdata;
  names = bash_command_names_all ((const char * const *) all->pdata, 2 * n);
  for (gsize i = 0; i < n && names[0] != NULL; i++)
    {
      g_auto(GStrv) before = g_strsplit (names[i], "\n", -1);
      g_auto(GStrv) after = g_strsplit (names[n + i], "\n", -1);

      for (guint k = 0; before[k] != NULL; k++)
        {
          gboolean seen = before[k][0] == '\0';

          for (guint m = 0; !seen && after[m] != NULL; m++)
            seen = bash_name_is_masked (before[k], after[m]);
          if (!seen)
            g_error ("bash runs '%s' in\n  %s\nbut not in its masked text\n  %s", before[k], texts[i],
                     (const char *) all->pdata[n + i]);
        }
    }
}

/* Every command bash runs in @text is run by bash in pd_redact(@text). */
static inline void
assert_bash_runs_in_masked (const char *text)
{
  assert_bash_runs_in_masked_all (&text, 1);
}
