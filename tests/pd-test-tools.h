/* pd-test-tools.h: what the tool tests share: a root holding a working
 * directory and a folder outside it, real temporary directories, and the
 * calls.  Shared by test-tools.c (the shell and the file tools at work) and
 * test-tools-paths.c (where the tools may reach, the registry, the plan
 * tool).  Header-only because the test list builds one source file per
 * test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-test-valgrind.h"

#include "pd-edit-file-tool.h"
#include "pd-grep-tool.h"
#include "pd-list-dir-tool.h"
#include "pd-plan-store.h"
#include "pd-plan-tool.h"
#include "pd-read-file-tool.h"
#include "pd-shell-tool.h"
#include "pd-test-files.h"
#include "pd-tool-private.h"
#include "pd-tool-registry.h"
#include "pd-write-file-tool.h"

/* A root holding the working directory "wd" and a sibling "outside" with
 * a file the tools must not reach. */
typedef struct
{
  char          *root;
  char          *wd;
  char          *outside;
  PdToolContext *context;
} Fixture;

static inline char *
fixture_path (Fixture    *f,
              const char *relative)
{
  return g_build_filename (f->wd, relative, NULL);
}

static inline void
write_text (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static inline char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);

  return text;
}

static inline void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *secret = NULL;

  f->root = g_dir_make_tmp ("pd-tools-XXXXXX", &error);
  g_assert_no_error (error);
  f->wd = g_build_filename (f->root, "wd", NULL);
  f->outside = g_build_filename (f->root, "outside", NULL);
  g_assert_cmpint (g_mkdir (f->wd, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->outside, 0755), ==, 0);

  secret = g_build_filename (f->outside, "secret.txt", NULL);
  write_text (secret, "top secret\n");

  f->context = pd_tool_context_new (f->wd, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->context);
}

static inline void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_pointer (&f->context, pd_tool_context_unref);
  pd_test_remove_tree (f->root);
  g_free (f->root);
  g_free (f->wd);
  g_free (f->outside);
}

static inline JsonObject *
parse_args (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));

  return json_object_ref (json_node_get_object (node));
}

/* parse_args() of a string it frees. */
static inline JsonObject *
parse_args_owned (char *json)
{
  JsonObject *args = parse_args (json);

  g_free (json);
  return args;
}

static inline PdToolResult *
call (PdTool        *tool,
      PdToolContext *context,
      const char    *json)
{
  g_autoptr(JsonObject) args = parse_args (json);
  g_autoptr(GError) error = NULL;
  PdToolResult *result;

  result = pd_tool_call (tool, context, args, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_nonnull (result->content);
  g_assert_true (g_utf8_validate (result->content, -1, NULL));

  return result;
}

/* Builds a JSON arguments object with one or two string members, so
 * that test paths need no escaping by hand. */
static inline char *
args_json (const char *key1,
           const char *value1,
           const char *key2,
           const char *value2)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, key1);
  json_builder_add_string_value (builder, value1);
  if (key2 != NULL)
    {
      json_builder_set_member_name (builder, key2);
      json_builder_add_string_value (builder, value2);
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  return json_to_string (root, FALSE);
}

/* A process counts as gone when it no longer exists or is a zombie
 * waiting for a reaper that is not us.  Bounded: up to about 3 s. */
static inline gboolean
process_gone (pid_t pid)
{
  for (guint i = 0; i < 300; i++)
    {
      g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
      g_autofree char *stat_text = NULL;
      const char *paren;

      if (kill (pid, 0) != 0 && errno == ESRCH)
        return TRUE;

      if (g_file_get_contents (stat_path, &stat_text, NULL, NULL) &&
          (paren = strrchr (stat_text, ')')) != NULL && paren[1] == ' ' && paren[2] == 'Z')
        return TRUE;

      g_usleep (10 * 1000);
    }

  return FALSE;
}

static inline pid_t
read_pid (Fixture    *f,
          const char *name)
{
  g_autofree char *path = fixture_path (f, name);
  g_autofree char *text = read_text (path);
  gint64 pid = g_ascii_strtoll (text, NULL, 10);

  g_assert_cmpint (pid, >, 1);
  return (pid_t) pid;
}

/* The shell call @json, whose jobs each wrote their pid into one of the
 * files named after it (up to NULL) and must be gone, as @gone tells, by
 * the time the call returned.  The result, for what else a test checks.
 * The set-up test-tools.c and test-shell-reaper.c repeated for each way a
 * job leaves its call. */
static inline PdToolResult *
call_jobs_gone (Fixture     *f,
                gboolean   (*gone) (pid_t pid),
                const char  *json,
                ...) G_GNUC_NULL_TERMINATED;

static inline PdToolResult *
call_jobs_gone (Fixture     *f,
                gboolean   (*gone) (pid_t pid),
                const char  *json,
                ...)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  PdToolResult *result = call (shell, f->context, json);
  const char *pid_file;
  va_list files;

  va_start (files, json);
  while ((pid_file = va_arg (files, const char *)) != NULL)
    {
      g_test_message ("the job of %s", pid_file);
      g_assert_true (gone (read_pid (f, pid_file)));
    }
  va_end (files);
  return result;
}

typedef struct
{
  PdToolResult *result;
  GError       *error;
  gboolean      done;
} AsyncCall;

static inline void
on_call_done (GObject      *object,
              GAsyncResult *res,
              gpointer      data)
{
  AsyncCall *ac = data;

  ac->result = pd_tool_call_finish (PD_TOOL (object), res, &ac->error);
  ac->done = TRUE;
}

static inline gboolean
cancel_now (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* Until the call is done, however slow the machine: a call that never
 * ends fails on the test's timeout, not on a guess of how long is enough. */
static inline void
wait_for (AsyncCall *ac)
{
  while (!ac->done)
    g_main_context_iteration (NULL, TRUE);
}

/* Secrets: a command sees no provider key, whatever it tries.  They are
 * set in main(), before any thread could read the environment. */
static const char * const secret_names[] = {
  "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY",
  "openrouter_api_key", "PLANDECK_SERVE_TOKEN", "PLANDECK_REMOTE_KEY", "MY_PROFILE_KEY",
  /* A provider's key under another name reached commands (tried as an
   * attacker would). */
  "OPENAI_KEY", "ANTHROPIC_TOKEN",
};

/* Before any test (and any thread): the file modes the tests expect, and
 * provider keys set for the shell to hide. */
static inline void
pd_test_tools_init (int    *argc,
                    char ***argv)
{
  g_test_init (argc, argv, NULL);
  /* The file mode expectations assume the usual umask. */
  umask (022);
  for (guint i = 0; i < G_N_ELEMENTS (secret_names); i++)
    g_setenv (secret_names[i], "pd-secret-sentinel", TRUE);
  g_setenv ("PD_TEST_VISIBLE", "pd-visible-sentinel", TRUE);
  /* A provider's address with a password in it is kept from commands;
   * another address with one (the tests' database) is not. */
  g_setenv ("OPENAI_BASE_URL", "http://user:pd-secret-sentinel@127.0.0.1:9/v1", TRUE);
  g_setenv ("ANTHROPIC_BASE_URL", "https://pd-secret-sentinel@proxy.example/", TRUE);
  g_setenv ("DATABASE_URL", "postgres://app:pd-visible-sentinel@127.0.0.1/app", TRUE);
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
