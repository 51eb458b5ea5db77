/* pd-plan-artifact.c: the durable markdown plan a person approved. */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-plan-artifact.h"

/* A plan is markdown whose first non-blank line is a "# " heading. */
gboolean
pd_plan_artifact_is_plan (const char *markdown)
{
  const char *p = markdown;

  if (markdown == NULL)
    return FALSE;

  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;

  if (p[0] != '#' || (p[1] != ' ' && p[1] != '\t'))
    return FALSE;

  for (p += 2; *p && *p != '\n'; p++)
    if (!g_ascii_isspace (*p))
      return TRUE;

  return FALSE;
}

/* The first heading's text, or "Plan". */
char *
pd_plan_artifact_title (const char *markdown)
{
  g_auto(GStrv) lines = g_strsplit (markdown ? markdown : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (line[0] == '#')
        {
          while (*line == '#')
            line++;
          if (*line == ' ' || *line == '\t')
            {
              g_autofree char *title = g_strstrip (g_strdup (line));
              if (*title)
                return g_steal_pointer (&title);
            }
        }
    }

  return g_strdup ("Plan");
}

/* Lower-case ASCII letters and digits joined by single hyphens, at most 48
 * characters: a file name on every file system. */
char *
pd_plan_artifact_slug (const char *title)
{
  g_autofree char *ascii = g_str_to_ascii (title ? title : "", "C");
  GString *out = g_string_new (NULL);
  gboolean hyphen = FALSE;

  for (const char *p = ascii; *p && out->len < 48; p++)
    {
      if (g_ascii_isalnum (*p))
        {
          if (hyphen && out->len > 0)
            g_string_append_c (out, '-');
          g_string_append_c (out, g_ascii_tolower (*p));
          hyphen = FALSE;
        }
      else
        hyphen = TRUE;
    }

  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate (out, out->len - 1);

  if (out->len == 0)
    g_string_append (out, "plan");

  return g_string_free (out, FALSE);
}

static char *
plans_dir (const char *worktree)
{
  if (worktree != NULL && *worktree && g_file_test (worktree, G_FILE_TEST_IS_DIR))
    return g_build_filename (worktree, PD_PLAN_ARTIFACT_DIR, NULL);
  return g_build_filename (g_get_user_data_dir (), "plandeck", "plans", NULL);
}

/**
 * pd_plan_artifact_save:
 * @worktree: (nullable): the session's working directory
 * @when: (nullable): the approval time, now when %NULL
 *
 * Returns: (transfer full): the path written, or %NULL with @error set
 */
char *
pd_plan_artifact_save (const char  *worktree,
                       const char  *session_id,
                       const char  *markdown,
                       GDateTime   *when,
                       GError     **error)
{
  g_autoptr(GDateTime) now = when ? g_date_time_ref (when) : g_date_time_new_now_utc ();
  g_autoptr(GDateTime) utc = g_date_time_to_utc (now);
  g_autofree char *dir = plans_dir (worktree);
  g_autofree char *title = pd_plan_artifact_title (markdown);
  g_autofree char *slug = pd_plan_artifact_slug (title);
  g_autofree char *stamp = g_date_time_format (utc, "%Y%m%dT%H%M%SZ");
  g_autofree char *iso = g_date_time_format (utc, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *path = NULL;
  g_autoptr(GString) content = NULL;

  if (!pd_plan_artifact_is_plan (markdown))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "a plan artifact must be markdown starting with a # heading");
      return NULL;
    }

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create %s: %s", dir, g_strerror (saved));
      return NULL;
    }

  /* Two approvals in one second get distinct names. */
  path = g_strdup_printf ("%s/%s-%s.md", dir, stamp, slug);
  for (guint n = 2; g_file_test (path, G_FILE_TEST_EXISTS) && n < 1000; n++)
    {
      g_free (path);
      path = g_strdup_printf ("%s/%s-%s-%u.md", dir, stamp, slug, n);
    }

  content = g_string_new (NULL);
  g_string_append_printf (content, "<!-- plandeck plan artifact: session %s, approved %s -->\n\n",
                          session_id ? session_id : "-", iso);
  g_string_append (content, markdown);
  if (content->len == 0 || content->str[content->len - 1] != '\n')
    g_string_append_c (content, '\n');

  /* g_file_set_contents writes a temporary file and renames it over. */
  if (!g_file_set_contents_full (path, content->str, (gssize) content->len,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
    return NULL;

  return g_steal_pointer (&path);
}

/* Whether @path (resolved, absolute) is inside the worktree's plan folder:
 * the one place plan mode lets a file be written. */
gboolean
pd_plan_artifact_path_is_artifact (const char *worktree,
                                   const char *path)
{
  g_autofree char *dir = NULL;
  g_autofree char *canonical = NULL;
  gsize len;

  if (worktree == NULL || path == NULL)
    return FALSE;

  dir = g_build_filename (worktree, PD_PLAN_ARTIFACT_DIR, NULL);
  canonical = g_canonicalize_filename (path, worktree);
  len = strlen (dir);

  return strncmp (canonical, dir, len) == 0 && canonical[len] == '/' && g_str_has_suffix (canonical, ".md");
}
