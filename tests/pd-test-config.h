/* pd-test-config.h: what the configuration tests share: config files
 * written into a fresh temporary folder, loaded with the options of the
 * case, and the exact warnings checked (they are what a person reads to
 * fix a config).  Shared by test-config.c (the layers, limits and bad
 * files) and test-config-project.c (sizes, the resolved JSON, what a
 * project's file may not do, provider layers).  Header-only because the
 * test list builds one source file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-config.h"
#include "pd-test-files.h"

typedef struct
{
  char *dir;
  char *global_path;
  char *project_path;
  PdConfigLoadOptions options;
} Fixture;

static inline void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  PdConfigLoadOptions init = PD_CONFIG_LOAD_OPTIONS_INIT;

  f->dir = g_dir_make_tmp ("pd-config-XXXXXX", &error);
  g_assert_no_error (error);
  f->global_path = g_build_filename (f->dir, "config.json", NULL);
  f->project_path = g_build_filename (f->dir, "plandeck.json", NULL);

  f->options = init;
  f->options.global_path = f->global_path;
  f->options.project_path = f->project_path;
  /* Whatever the developer's shell exports must not leak into the cases. */
  f->options.ignore_env = TRUE;
}

static inline void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (pd_test_remove_tree (f->dir));
  g_clear_pointer (&f->dir, g_free);
  g_clear_pointer (&f->global_path, g_free);
  g_clear_pointer (&f->project_path, g_free);
}

static inline void
write_file (const char *path,
            const char *contents,
            gssize      length)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
}

static inline PdConfig *
load (Fixture    *f,
      const char *global_json,
      const char *project_json)
{
  if (global_json != NULL)
    write_file (f->global_path, global_json, -1);
  if (project_json != NULL)
    write_file (f->project_path, project_json, -1);

  return pd_config_load (&f->options);
}

/* Compares the whole warning list, printing both lists on a mismatch so a
 * failure says what changed. */
static inline void
assert_warnings (PdConfig           *config,
                 const char * const *expected)
{
  const char * const *warnings = pd_config_get_warnings (config);

  g_assert_nonnull (warnings);

  if (!g_strv_equal ((const char * const *) warnings, expected))
    {
      g_autofree char *got = g_strjoinv ("\n  ", (char **) warnings);
      g_autofree char *want = g_strjoinv ("\n  ", (char **) expected);

      g_test_message ("warnings differ\nexpected:\n  %s\ngot:\n  %s", want, got);
    }

  g_assert_cmpstrv (warnings, expected);
}

static inline void
assert_no_warnings (PdConfig *config)
{
  const char * const none[] = { NULL };

  assert_warnings (config, none);
}

static inline void
assert_one_warning (PdConfig   *config,
                    const char *expected)
{
  const char * const one[] = { expected, NULL };

  assert_warnings (config, one);
}

static inline void
assert_defaults (PdConfig *config)
{
  g_assert_true (pd_config_get_planning_enabled (config));
  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 12);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 2000);
}

/* Sets PLANDECK_PLANNING for one load and puts the old value back. */
static inline PdConfig *
load_with_env (Fixture    *f,
               const char *env_value)
{
  g_autofree char *saved = g_strdup (g_getenv ("PLANDECK_PLANNING"));
  PdConfig *config;

  g_assert_true (g_setenv ("PLANDECK_PLANNING", env_value, TRUE));
  f->options.ignore_env = FALSE;
  config = pd_config_load (&f->options);
  f->options.ignore_env = TRUE;

  if (saved != NULL)
    g_setenv ("PLANDECK_PLANNING", saved, TRUE);
  else
    g_unsetenv ("PLANDECK_PLANNING");

  return config;
}

/* Not G_TEST_OPTION_ISOLATE_DIRS: in GLib 2.74 it leaks the previous
 * values on purpose, which valgrind and LeakSanitizer report.  One private
 * config home, set before GLib first caches it, is enough.  Returns it,
 * for pd_test_config_finish(). */
static inline char *
pd_test_config_init (int    *argc,
                     char ***argv)
{
  g_autoptr(GError) error = NULL;
  char *config_home = g_dir_make_tmp ("pd-config-home-XXXXXX", &error);

  g_assert_no_error (error);
  g_setenv ("XDG_CONFIG_HOME", config_home, TRUE);
  g_assert_cmpstr (g_get_user_config_dir (), ==, config_home);

  g_test_init (argc, argv, NULL);
  return config_home;
}

static inline void
pd_test_config_finish (char *config_home)
{
  g_assert_true (pd_test_remove_tree (config_home));
  g_free (config_home);
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
#define ADD_DATA(path, data, func) \
  g_test_add (path, Fixture, data, fixture_setup, func, fixture_teardown)
