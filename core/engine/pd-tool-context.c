/* pd-tool-context.c: PdToolContext, where the tools run: the working
 * directory they are confined to, the environment handed to commands (keys
 * kept out), their limits and the run's deadline.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd-tool-private.h"

struct _PdToolContext
{
  char      *working_dir;    /* absolute, canonical (realpath) */
  int        root_fd;        /* O_PATH of working_dir: what confined opens start from */
  gboolean   allow_outside;
  guint      shell_timeout_ms;
  gsize      output_cap;
  gint64     deadline_usec;  /* g_get_monotonic_time() clock; 0: none */
  GPtrArray *env;            /* "NAME=VALUE", NULL-terminated */
  GPtrArray *hidden_env;     /* names kept from commands besides the built-in ones */
  char      *approved_path;  /* the resolved file a call was let through for; NULL: none */
  PdToolAnchor approved_anchor; /* the folder it was to land in, as it was then */
};

/* Never handed to a command: the keys of model providers (the tools' output
 * goes back to a model, so a command that prints its environment would send
 * them along).  Any NAME_API_KEY is some service's key; the provider names
 * also used for tokens are listed; PLANDECK_ variables holding a token, key
 * or secret are the project's own.  A profile or config that names another
 * variable as its key's source adds it with pd_tool_context_hide_env(). */
static const char * const secret_env_names[] = {
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_ADMIN_KEY",
  "AZURE_OPENAI_AD_TOKEN",
};

G_DEFINE_BOXED_TYPE (PdToolContext, pd_tool_context,
                     pd_tool_context_ref, pd_tool_context_unref)

static void
pd_tool_context_clear (PdToolContext *self)
{
  g_clear_pointer (&self->working_dir, g_free);
  if (self->root_fd >= 0)
    close (self->root_fd);
  g_clear_pointer (&self->env, g_ptr_array_unref);
  g_clear_pointer (&self->hidden_env, g_ptr_array_unref);
  g_clear_pointer (&self->approved_path, g_free);
}

/**
 * pd_tool_context_new:
 * @working_dir: an existing directory
 *
 * Returns: (transfer full) (nullable): a context rooted at the canonical
 *   form of @working_dir, or %NULL when it is not a directory
 */
PdToolContext *
pd_tool_context_new (const char  *working_dir,
                     GError     **error)
{
  PdToolContext *self;
  char *canonical;
  struct stat st;
  int root_fd = -1;

  g_return_val_if_fail (working_dir != NULL, NULL);

  /* The directory is held open: every confined open starts from it, so
   * renaming or replacing its path later cannot redirect the tools. */
  canonical = realpath (working_dir, NULL);
  if (canonical == NULL ||
      (root_fd = open (canonical, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
      fstat (root_fd, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      int saved_errno = errno;

      if (root_fd >= 0)
        close (root_fd);
      free (canonical);
      g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                   "working directory '%s' is not a usable directory: %s",
                   working_dir, canonical && saved_errno != ENOTDIR ? g_strerror (saved_errno) : "not a directory");
      return NULL;
    }

  self = g_atomic_rc_box_new0 (PdToolContext);
  self->working_dir = g_strdup (canonical);
  self->root_fd = root_fd;
  free (canonical);
  self->shell_timeout_ms = PD_TOOL_DEFAULT_SHELL_TIMEOUT_MS;
  self->output_cap = PD_TOOL_DEFAULT_OUTPUT_CAP;
  self->env = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->env, NULL);
  self->hidden_env = g_ptr_array_new_with_free_func (g_free);

  return self;
}

/**
 * pd_tool_context_copy:
 *
 * A new context with the same settings, for one run or one call: the
 * engine copies its context to give a run's tools that run's deadline
 * without touching the context other runs share.
 *
 * Returns: (transfer full): the copy
 */
PdToolContext *
pd_tool_context_copy (PdToolContext *self)
{
  PdToolContext *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_atomic_rc_box_new0 (PdToolContext);
  copy->working_dir = g_strdup (self->working_dir);
  copy->root_fd = fcntl (self->root_fd, F_DUPFD_CLOEXEC, 3);
  if (copy->root_fd < 0)
    g_error ("cannot duplicate the working directory descriptor: %s", g_strerror (errno));
  copy->allow_outside = self->allow_outside;
  copy->shell_timeout_ms = self->shell_timeout_ms;
  copy->output_cap = self->output_cap;
  copy->deadline_usec = self->deadline_usec;
  copy->env = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i + 1 < self->env->len; i++)
    g_ptr_array_add (copy->env, g_strdup (g_ptr_array_index (self->env, i)));
  g_ptr_array_add (copy->env, NULL);
  copy->hidden_env = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->hidden_env->len; i++)
    g_ptr_array_add (copy->hidden_env, g_strdup (g_ptr_array_index (self->hidden_env, i)));
  copy->approved_path = g_strdup (self->approved_path);
  copy->approved_anchor = self->approved_anchor;

  return copy;
}

PdToolContext *
pd_tool_context_ref (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

void
pd_tool_context_unref (PdToolContext *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) pd_tool_context_clear);
}

const char *
pd_tool_context_get_working_dir (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->working_dir;
}

gboolean
pd_tool_context_get_allow_outside (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->allow_outside;
}

void
pd_tool_context_set_allow_outside (PdToolContext *self,
                                   gboolean       allow_outside)
{
  g_return_if_fail (self != NULL);

  self->allow_outside = !!allow_outside;
}

guint
pd_tool_context_get_shell_timeout_ms (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->shell_timeout_ms;
}

/* 0 restores the default; larger values are clamped so a typo in a config
 * file cannot leave a command running for days. */
void
pd_tool_context_set_shell_timeout_ms (PdToolContext *self,
                                      guint          timeout_ms)
{
  g_return_if_fail (self != NULL);

  if (timeout_ms == 0)
    timeout_ms = PD_TOOL_DEFAULT_SHELL_TIMEOUT_MS;
  self->shell_timeout_ms = MIN (timeout_ms, PD_TOOL_MAX_SHELL_TIMEOUT_MS);
}

gsize
pd_tool_context_get_output_cap (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->output_cap;
}

/* The cap bounds what one result adds to the model's context.  Below 1 KiB
 * even an error message would not fit, so that is the floor. */
void
pd_tool_context_set_output_cap (PdToolContext *self,
                                gsize          output_cap)
{
  g_return_if_fail (self != NULL);

  if (output_cap == 0)
    output_cap = PD_TOOL_DEFAULT_OUTPUT_CAP;
  self->output_cap = MAX (output_cap, 1024);
}

/**
 * pd_tool_context_setenv:
 * @name: a variable name (no '=')
 * @value: (nullable): its value; %NULL removes an earlier addition
 *
 * Adds a variable to the environment of shell commands, on top of the
 * process environment.
 */
void
pd_tool_context_setenv (PdToolContext *self,
                        const char    *name,
                        const char    *value)
{
  gsize name_len;

  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL && *name != '\0' && strchr (name, '=') == NULL);

  name_len = strlen (name);
  for (guint i = 0; i + 1 < self->env->len; i++)
    {
      const char *entry = g_ptr_array_index (self->env, i);

      if (strncmp (entry, name, name_len) == 0 && entry[name_len] == '=')
        {
          g_ptr_array_remove_index (self->env, i);
          break;
        }
    }

  if (value != NULL)
    g_ptr_array_insert (self->env, self->env->len - 1, g_strconcat (name, "=", value, NULL));
}

/**
 * pd_tool_context_get_env_additions:
 *
 * Returns: (transfer none): the additions as "NAME=VALUE", NULL-terminated
 */
const char * const *
pd_tool_context_get_env_additions (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->env->pdata;
}

/**
 * pd_tool_context_hide_env:
 * @name: a variable name
 *
 * Keeps @name out of the environment of commands, like the provider keys
 * that are always kept out: for a variable a profile or the config names
 * as the source of an API key.  An addition of the same name is dropped.
 */
void
pd_tool_context_hide_env (PdToolContext *self,
                          const char    *name)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  if (*name == '\0' || strchr (name, '=') != NULL || pd_tool_context_env_is_hidden (self, name))
    return;

  g_ptr_array_add (self->hidden_env, g_strdup (name));
  pd_tool_context_setenv (self, name, NULL);
}

static gboolean
contains_word (const char *name,
               const char *word)
{
  return strstr (name, word) != NULL;
}

/* The built-in rules, without a context's own additions. */
static gboolean
name_is_secret (const char *name)
{
  g_autofree char *upper = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (secret_env_names); i++)
    if (strcmp (name, secret_env_names[i]) == 0)
      return TRUE;

  /* Case-folded: the environment is case-sensitive, the habit of naming
   * keys is not. */
  upper = g_ascii_strup (name, -1);
  if (g_str_has_suffix (upper, "_API_KEY") || g_str_has_suffix (upper, "_APIKEY"))
    return TRUE;
  /* The project's own, and a provider's under any other name
   * (OPENAI_KEY, ANTHROPIC_TOKEN: tried as an attacker would). */
  if ((g_str_has_prefix (upper, "PLANDECK_") || g_str_has_prefix (upper, "OPENAI_") ||
       g_str_has_prefix (upper, "ANTHROPIC_") || g_str_has_prefix (upper, "AZURE_OPENAI_")) &&
      (contains_word (upper, "TOKEN") || contains_word (upper, "KEY") ||
       contains_word (upper, "SECRET") || contains_word (upper, "PASSWORD")))
    return TRUE;

  return FALSE;
}

/* A provider's address with a password in it (OPENAI_BASE_URL=
 * http://user:password@host/…): kept from commands by what it holds, as a
 * key is by its name.  Other URLs (a DATABASE_URL the tests need) stay. */
static gboolean
value_is_secret (const char *name,
                 const char *value)
{
  const char *authority;
  const char *end;
  const char *at;

  if (!(g_str_has_prefix (name, "OPENAI_") || g_str_has_prefix (name, "ANTHROPIC_")) ||
      !(authority = strstr (value, "://")))
    return FALSE;
  authority += 3;
  end = authority + strcspn (authority, "/?#");
  at = memchr (authority, '@', end - authority);
  return at != NULL;
}

/**
 * pd_tool_context_env_is_hidden:
 *
 * Returns: whether commands never see the variable @name
 */
gboolean
pd_tool_context_env_is_hidden (PdToolContext *self,
                               const char    *name)
{
  g_return_val_if_fail (self != NULL, TRUE);
  g_return_val_if_fail (name != NULL, TRUE);

  for (guint i = 0; i < self->hidden_env->len; i++)
    if (strcmp (name, g_ptr_array_index (self->hidden_env, i)) == 0)
      return TRUE;

  return name_is_secret (name);
}

/**
 * pd_tool_scrub_startup_environ:
 *
 * A command the model runs can read /proc/PPID/environ: not the process's
 * environment as setenv() left it, but the block it was started with, in
 * its own memory.  This moves the value of every variable the built-in
 * rules call secret to the heap (setenv) and overwrites it in that block,
 * so the process still reads its keys and the file shows none.  Call it
 * first thing in main(), before any thread can read the environment.
 */
void
pd_tool_scrub_startup_environ (void)
{
  g_autoptr(GPtrArray) originals = g_ptr_array_new ();

  /* Collected first: setenv() may move the array being walked. */
  for (char **entry = environ; entry != NULL && *entry != NULL; entry++)
    {
      const char *eq = strchr (*entry, '=');
      g_autofree char *name = eq ? g_strndup (*entry, eq - *entry) : NULL;

      if (name != NULL && name_is_secret (name))
        g_ptr_array_add (originals, *entry);
    }

  for (guint i = 0; i < originals->len; i++)
    {
      char *original = g_ptr_array_index (originals, i);
      char *eq = strchr (original, '=');
      g_autofree char *name = g_strndup (original, eq - original);
      g_autofree char *value = g_strdup (eq + 1);

      if (setenv (name, value, 1) != 0)
        continue;
      memset (eq + 1, '*', strlen (eq + 1));
    }
}

/**
 * pd_tool_context_build_env:
 *
 * The environment of a command: the process's, less every hidden variable,
 * with pagers that do not wait for a terminal, and the additions on top.
 *
 * Returns: (transfer full): "NAME=VALUE" strings, for g_spawn_*()
 */
char **
pd_tool_context_build_env (PdToolContext *self)
{
  g_auto(GStrv) inherited = g_get_environ ();
  g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; inherited[i] != NULL; i++)
    {
      const char *eq = strchr (inherited[i], '=');
      g_autofree char *name = eq ? g_strndup (inherited[i], eq - inherited[i]) : g_strdup (inherited[i]);

      if (!pd_tool_context_env_is_hidden (self, name) && !(eq && value_is_secret (name, eq + 1)))
        g_ptr_array_add (env, g_strdup (inherited[i]));
    }
  g_ptr_array_add (env, NULL);

  {
    char **result = (char **) g_ptr_array_free (g_steal_pointer (&env), FALSE);

    /* Pagers would wait for a terminal that is not there. */
    result = g_environ_setenv (result, "PAGER", "cat", TRUE);
    result = g_environ_setenv (result, "GIT_PAGER", "cat", TRUE);

    for (guint i = 0; i + 1 < self->env->len; i++)
      {
        const char *entry = g_ptr_array_index (self->env, i);
        const char *eq = strchr (entry, '=');
        g_autofree char *name = g_strndup (entry, eq - entry);

        if (!pd_tool_context_env_is_hidden (self, name))
          result = g_environ_setenv (result, name, eq + 1, TRUE);
      }

    return result;
  }
}

/**
 * pd_tool_context_get_deadline:
 *
 * Returns: when the run's time budget runs out, on the clock of
 *   g_get_monotonic_time(), or 0 for no deadline
 */
gint64
pd_tool_context_get_deadline (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->deadline_usec;
}

/**
 * pd_tool_context_set_deadline:
 * @deadline_usec: a g_get_monotonic_time() time, or 0 for none
 *
 * Every tool stops its work when the deadline passes and says so in its
 * result; a call that starts after it does not run.
 */
void
pd_tool_context_set_deadline (PdToolContext *self,
                              gint64         deadline_usec)
{
  g_return_if_fail (self != NULL);

  self->deadline_usec = MAX (deadline_usec, 0);
}

/**
 * pd_tool_context_set_approved_path:
 * @resolved: (nullable): what pd_tool_context_resolve_path() said when the
 *   call was let through (plan mode's guard, a person's approval), "" when
 *   it said nothing; NULL: no such check
 *
 * A path is resolved when the call is decided and again when it runs, and
 * a link planted in between (`.plandeck/plans/x -> ../..` while the person
 * is asked) made the write land elsewhere than where it was let through to
 * (tried as an attacker would).  With an approved path set, a file tool
 * whose path now resolves to another file refuses; its open then follows
 * no link, so what it writes is the file approved.  The folder the file
 * lands in (or the nearest one that exists) is recorded as it is now, by
 * device and inode: a write that reaches another folder by that name (two
 * real folders exchanged meanwhile) refuses too.
 */
void
pd_tool_context_set_approved_path (PdToolContext *self,
                                   const char    *resolved)
{
  g_return_if_fail (self != NULL);

  g_free (self->approved_path);
  self->approved_path = g_strdup (resolved);
  memset (&self->approved_anchor, 0, sizeof self->approved_anchor);
  if (resolved != NULL && *resolved != '\0')
    _pd_tool_anchor_record (self, resolved, &self->approved_anchor);
}

/**
 * pd_tool_context_approve_path:
 * @path: a write's or an edit's "path", as the model wrote it
 *
 * Resolves @path once and keeps what it resolved to as the call's approved
 * path (pd_tool_context_set_approved_path()), with the folder it lands in as
 * it is now.  The question's preview, plan mode's guard and the tool then
 * all use this one resolution: each resolved the path for itself, and a
 * folder swapped for a link in between made the question show one file and
 * the tool write another (3 of 600 writes; tried as an attacker would).
 *
 * Returns: (transfer none): the resolved path, "" when it did not resolve
 */
const char *
pd_tool_context_approve_path (PdToolContext *self,
                              const char    *path)
{
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  resolved = pd_tool_context_resolve_path (self, path, NULL);
  pd_tool_context_set_approved_path (self, resolved != NULL ? resolved : "");
  return self->approved_path;
}

const PdToolAnchor *
_pd_tool_context_get_anchor (PdToolContext *self)
{
  return self->approved_path != NULL && self->approved_anchor.set ? &self->approved_anchor : NULL;
}

/**
 * pd_tool_context_get_approved_path:
 *
 * Returns: (nullable): the path of pd_tool_context_set_approved_path()
 */
const char *
pd_tool_context_get_approved_path (PdToolContext *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->approved_path;
}

int
_pd_tool_context_get_root_fd (PdToolContext *self)
{
  return self->root_fd;
}

PdToolStop
_pd_tool_check_stop (PdToolContext *context,
                     GCancellable  *cancellable)
{
  if (g_cancellable_is_cancelled (cancellable))
    return PD_TOOL_STOP_CANCELLED;
  if (context->deadline_usec > 0 && g_get_monotonic_time () >= context->deadline_usec)
    return PD_TOOL_STOP_DEADLINE;
  return PD_TOOL_GO;
}

static gboolean
path_is_inside (const char *path,
                const char *dir)
{
  gsize len = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return TRUE;

  return strncmp (path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

static void
append_component (GString    *path,
                  const char *component)
{
  if (path->len == 0 || path->str[path->len - 1] != '/')
    g_string_append_c (path, '/');
  g_string_append (path, component);
}

/* Drops the last component of a canonical path ("/a/b" → "/a", "/a" → "/"). */
static void
drop_component (GString *path)
{
  const char *slash = strrchr (path->str, '/');

  g_string_truncate (path, slash == path->str ? 1 : (gsize) (slash - path->str));
}

/* Where a link leads is not said: the model would learn names of files
 * outside the folder from it (tried as an attacker would); nor whether it
 * leads anywhere. */
static void
set_outside_error (PdToolContext  *self,
                   const char     *path,
                   GError        **error)
{
  g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
               "path '%s' is outside the working directory '%s' (itself, or through a "
               "symbolic link on the way), or a symbolic link on the way leads nowhere",
               path, self->working_dir);
}

/**
 * pd_tool_context_resolve_path:
 * @path: a path from the model, relative to the working directory or absolute
 *
 * Resolves @path the way the kernel would: the longest existing prefix is
 * canonicalized component by component (so a symbolic link or a `..` cannot
 * step outside unnoticed), and the components that do not exist yet are
 * appended lexically.  Unless the context allows it, a result outside the
 * working directory is refused.
 *
 * This check alone cannot catch a link swapped in between it and the use of
 * the path; the file tools therefore never open the result by its name but
 * with _pd_tool_open() (pd-tool-fs.c), which follows no link on the way
 * and cannot leave the working directory whatever changes meanwhile.
 *
 * Returns: (transfer full) (nullable): the absolute resolved path
 */
char *
pd_tool_context_resolve_path (PdToolContext  *self,
                              const char     *path,
                              GError        **error)
{
  g_autoptr(GString) canon = NULL;
  g_autoptr(GPtrArray) tail = NULL;
  g_auto(GStrv) components = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (*path == '\0')
    {
      g_set_error_literal (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                           "the path is empty");
      return NULL;
    }

  canon = g_string_new (g_path_is_absolute (path) ? "/" : self->working_dir);
  tail = g_ptr_array_new ();
  components = g_strsplit (path, "/", -1);

  for (guint i = 0; components[i] != NULL; i++)
    {
      const char *c = components[i];
      g_autoptr(GString) candidate = NULL;
      struct stat st;

      if (*c == '\0' || strcmp (c, ".") == 0)
        continue;

      if (strcmp (c, "..") == 0)
        {
          /* Components that do not exist cannot be links, so their ".."
           * is lexical; otherwise canon is canonical and its parent real. */
          if (tail->len > 0)
            g_ptr_array_remove_index (tail, tail->len - 1);
          else
            drop_component (canon);
          continue;
        }

      if (tail->len > 0)
        {
          g_ptr_array_add (tail, (gpointer) c);
          continue;
        }

      candidate = g_string_new (canon->str);
      append_component (candidate, c);

      if (lstat (candidate->str, &st) != 0)
        {
          int saved_errno = errno;

          if (saved_errno == ENOENT || saved_errno == ENOTDIR)
            {
              g_ptr_array_add (tail, (gpointer) c);
              continue;
            }

          g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                       "cannot resolve path '%s': %s", path, g_strerror (saved_errno));
          return NULL;
        }

      if (S_ISLNK (st.st_mode))
        {
          char *target = realpath (candidate->str, NULL);

          if (target == NULL)
            {
              /* A dangling link would let a write create its target
               * wherever it points, so it is never followed.  It is
               * answered as a path outside is: a link out of the folder
               * to a missing name told the model that the name did not
               * exist there, and one to an existing name that it did
               * (tried as an attacker would). */
              set_outside_error (self, path, error);
              return NULL;
            }

          g_string_assign (canon, target);
          free (target);
        }
      else
        {
          g_string_assign (canon, candidate->str);
        }
    }

  for (guint i = 0; i < tail->len; i++)
    append_component (canon, g_ptr_array_index (tail, i));

  if (!self->allow_outside && !path_is_inside (canon->str, self->working_dir))
    {
      set_outside_error (self, path, error);
      return NULL;
    }

  return g_string_free (g_steal_pointer (&canon), FALSE);
}

/* The part of @resolved below the working directory ("." for the directory
 * itself), or NULL when it is outside (only an allow_outside context
 * resolves such a path).  A path inside is opened confined even when the
 * context allows the outside: it holds no link, so one met on the way was
 * swapped in after the path was resolved (or approved). */
const char *
_pd_tool_context_confined_relative (PdToolContext *self,
                                    const char    *resolved)
{
  gsize len = strlen (self->working_dir);

  if (!path_is_inside (resolved, self->working_dir))
    return NULL;

  if (strcmp (resolved, self->working_dir) == 0)
    return ".";

  if (strcmp (self->working_dir, "/") == 0)
    len = 0;

  return resolved + len + 1;
}

/* Whether @resolved (an absolute path without links) is the working
 * directory or below it, allow_outside or not. */
gboolean
_pd_tool_context_is_inside (PdToolContext *self,
                            const char    *resolved)
{
  return path_is_inside (resolved, self->working_dir);
}

/**
 * pd_tool_context_display_path:
 * @resolved: a path from pd_tool_context_resolve_path()
 *
 * Returns: (transfer full): @resolved relative to the working directory
 *   when it is inside ("." for the directory itself), else as given
 */
char *
pd_tool_context_display_path (PdToolContext *self,
                              const char    *resolved)
{
  gsize len;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (resolved != NULL, NULL);

  if (!path_is_inside (resolved, self->working_dir))
    return g_strdup (resolved);

  if (strcmp (resolved, self->working_dir) == 0)
    return g_strdup (".");

  len = strlen (self->working_dir);
  if (strcmp (self->working_dir, "/") == 0)
    len = 0;

  return g_strdup (resolved + len + 1);
}

