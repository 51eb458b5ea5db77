/* test-config.c: the configuration layers and their rules, with real
 * files: defaults, the global file, the environment and the command line,
 * limits clamped, a project's file lowering them, and bad files.  Every
 * case writes its config files into a fresh temporary folder and checks
 * both the resolved values and the exact warnings (pd-test-config.h).
 * Sizes, the resolved JSON and what a project's file may not do are in
 * test-config-project.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-config"

#include "config.h"

#include "pd-test-config.h"

static void
test_defaults (Fixture       *f,
               gconstpointer  data)
{
  /* No files at all: every layer is optional, so no warnings either. */
  g_autoptr(PdConfig) config = load (f, NULL, NULL);

  assert_defaults (config);
  assert_no_warnings (config);
  g_assert_null (pd_config_get_global_path (config));
  g_assert_null (pd_config_get_project_path (config));
  g_assert_cmpint (pd_config_get_origin (config, "planning.enabled"), ==, PD_CONFIG_ORIGIN_DEFAULT);
  g_assert_cmpstr (pd_config_get_provider_name (config), ==, "openai");
  g_assert_null (pd_config_get_provider_base_url (config));
  g_assert_null (pd_config_get_provider_model (config));
  g_assert_cmpstr (pd_config_get_provider_api_key_env (config), ==, "OPENAI_API_KEY");
  g_assert_null (pd_config_get_plan_mode_section (config));
  g_assert_false (pd_config_get_plan_mode_advisory (config));
  g_assert_cmpuint (pd_config_get_max_iterations (config), ==, 50);
  g_assert_cmpint (pd_config_get_max_tokens (config), ==, 0);
  g_assert_cmpuint (pd_config_get_max_seconds (config), ==, 0);
  g_assert_false (pd_config_get_allow_outside (config));
}

static void
test_missing_folder (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *global = g_build_filename (f->dir, "no-such-dir", "config.json", NULL);
  g_autoptr(PdConfig) config = NULL;

  f->options.global_path = global;
  config = load (f, NULL, NULL);

  assert_defaults (config);
  assert_no_warnings (config);
}

static void
test_default_paths (Fixture       *f,
                    gconstpointer  data)
{
  /* main() points XDG_CONFIG_HOME at a private folder, so writing there
   * never touches the developer's real config. */
  g_autofree char *config_dir = g_build_filename (g_get_user_config_dir (), "plandeck", NULL);
  g_autofree char *global = g_build_filename (config_dir, "config.json", NULL);
  g_autofree char *old_cwd = g_get_current_dir ();
  g_autofree char *project = g_build_filename (f->dir, "plandeck.json", NULL);
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdConfig) config = NULL;

  g_assert_no_errno (g_mkdir_with_parents (config_dir, 0700));
  write_file (global, "{\"planning\": {\"max_steps\": 20, \"max_render_chars\": 3000}}", -1);
  write_file (project, "{\"planning\": {\"max_steps\": 15}}", -1);

  options.ignore_env = TRUE;
  g_assert_no_errno (chdir (f->dir));
  config = pd_config_load (&options);
  g_assert_no_errno (chdir (old_cwd));

  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 15);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 3000);
  g_assert_cmpstr (pd_config_get_global_path (config), ==, global);
  g_assert_cmpstr (pd_config_get_project_path (config), ==, "./plandeck.json");
  assert_no_warnings (config);

  g_assert_no_errno (g_unlink (global));
}

static void
test_global_values (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdConfig) config =
    load (f, "{\"planning\": {\"enabled\": false, \"max_steps\": 30, \"max_render_chars\": 5000}}", NULL);

  g_assert_false (pd_config_get_planning_enabled (config));
  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 30);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 5000);
  g_assert_cmpstr (pd_config_get_global_path (config), ==, f->global_path);
  assert_no_warnings (config);
}

static void
test_env_disable (Fixture       *f,
                  gconstpointer  data)
{
  const char *spellings[] = { "false", "0", "no", "off", "FALSE", "Off", "NO", " false " };

  write_file (f->global_path, "{\"planning\": {\"enabled\": true}}", -1);

  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autoptr(PdConfig) config = load_with_env (f, spellings[i]);

      g_test_message ("PLANDECK_PLANNING=%s", spellings[i]);
      g_assert_false (pd_config_get_planning_enabled (config));
      assert_no_warnings (config);
    }
}

static void
test_env_enable_over_global_off (Fixture       *f,
                                 gconstpointer  data)
{
  const char *spellings[] = { "true", "1", "yes", "on", "TRUE", "Yes", "ON" };

  write_file (f->global_path, "{\"planning\": {\"enabled\": false}}", -1);

  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autoptr(PdConfig) config = load_with_env (f, spellings[i]);

      g_test_message ("PLANDECK_PLANNING=%s", spellings[i]);
      g_assert_true (pd_config_get_planning_enabled (config));
      assert_no_warnings (config);
    }
}

static void
test_env_invalid (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdConfig) config_off = NULL;

  config = load_with_env (f, "maybe");
  g_assert_true (pd_config_get_planning_enabled (config));
  assert_one_warning (config,
                      "environment: PLANDECK_PLANNING=maybe ignored: use true/false, 1/0, yes/no or on/off");

  /* An unreadable value must not flip what the files said either. */
  write_file (f->global_path, "{\"planning\": {\"enabled\": false}}", -1);
  config_off = load_with_env (f, "enable\nwarning: forged");
  g_assert_false (pd_config_get_planning_enabled (config_off));
  assert_one_warning (config_off,
                      "environment: PLANDECK_PLANNING=enable?warning: forged ignored: use true/false, 1/0, yes/no or on/off");
}

static void
test_env_empty (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdConfig) config = NULL;

  write_file (f->global_path, "{\"planning\": {\"enabled\": false}}", -1);
  config = load_with_env (f, "");

  g_assert_false (pd_config_get_planning_enabled (config));
  assert_no_warnings (config);
}

static void
test_env_ignored (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *saved = g_strdup (g_getenv ("PLANDECK_PLANNING"));
  g_autoptr(PdConfig) config = NULL;

  g_setenv ("PLANDECK_PLANNING", "false", TRUE);
  config = pd_config_load (&f->options);
  if (saved != NULL)
    g_setenv ("PLANDECK_PLANNING", saved, TRUE);
  else
    g_unsetenv ("PLANDECK_PLANNING");

  g_assert_true (pd_config_get_planning_enabled (config));
}

static void
test_cli_disable (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdConfig) config = NULL;

  write_file (f->global_path, "{\"planning\": {\"enabled\": true}}", -1);
  f->options.cli_planning = 0;
  config = load_with_env (f, "true");

  g_assert_false (pd_config_get_planning_enabled (config));
  assert_no_warnings (config);
}

static void
test_cli_enable_over_global_off (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(PdConfig) without_flag = NULL;
  g_autoptr(PdConfig) config = NULL;

  write_file (f->global_path, "{\"planning\": {\"enabled\": false}}", -1);
  write_file (f->project_path, "{\"planning\": {\"enabled\": false}}", -1);

  without_flag = load_with_env (f, "off");
  g_assert_false (pd_config_get_planning_enabled (without_flag));

  f->options.cli_planning = 1;
  config = load_with_env (f, "off");
  g_assert_true (pd_config_get_planning_enabled (config));
  assert_no_warnings (config);
}

typedef struct
{
  const char *key;
  int given;
  guint expected;
} ClampCase;

static const ClampCase clamp_cases[] = {
  { "max_steps", 0, 1 },
  { "max_steps", -7, 1 },
  { "max_steps", 80, 50 },
  { "max_render_chars", 100, 200 },
  { "max_render_chars", 9000, 8000 },
};

static guint
get_limit (PdConfig   *config,
           const char *key)
{
  if (g_str_equal (key, "max_steps"))
    return pd_config_get_planning_max_steps (config);
  return pd_config_get_planning_max_render_chars (config);
}

static void
test_clamp_global (Fixture       *f,
                   gconstpointer  data)
{
  const ClampCase *c = data;
  g_autofree char *json = g_strdup_printf ("{\"planning\": {\"%s\": %d}}", c->key, c->given);
  g_autofree char *expected = NULL;
  g_autoptr(PdConfig) config = load (f, json, NULL);
  gboolean steps = g_str_equal (c->key, "max_steps");

  g_assert_cmpuint (get_limit (config, c->key), ==, c->expected);
  expected = g_strdup_printf ("global config %s: planning.%s %d is out of range %s; using %u",
                              f->global_path, c->key, c->given,
                              steps ? "1..50" : "200..8000", c->expected);
  assert_one_warning (config, expected);
}

static void
test_clamp_cli (Fixture       *f,
                gconstpointer  data)
{
  const ClampCase *c = data;
  g_autofree char *expected = NULL;
  g_autoptr(PdConfig) config = NULL;
  gboolean steps = g_str_equal (c->key, "max_steps");

  if (steps)
    f->options.cli_max_steps = c->given;
  else
    f->options.cli_max_render_chars = c->given;
  config = load (f, NULL, NULL);

  g_assert_cmpuint (get_limit (config, c->key), ==, c->expected);
  expected = g_strdup_printf ("command line: %s %d is out of range %s; using %u",
                              steps ? "--max-steps" : "--max-render-chars", c->given,
                              steps ? "1..50" : "200..8000", c->expected);
  assert_one_warning (config, expected);
}

static void
test_cli_limits_override (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdConfig) config = NULL;

  /* The command line may raise above what the project asked for: it is
   * the person at the keyboard, not the repository. */
  f->options.cli_max_steps = 40;
  f->options.cli_max_render_chars = 7000;
  config = load (f,
                 "{\"planning\": {\"max_steps\": 20, \"max_render_chars\": 3000}}",
                 "{\"planning\": {\"max_steps\": 5, \"max_render_chars\": 500}}");

  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 40);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 7000);
  assert_no_warnings (config);
}

typedef struct
{
  const char *key;
  int global;       /* -1: no global file */
  int project;
  guint expected;
  gboolean warns;
} LowerCase;

static const LowerCase lower_cases[] = {
  { "max_steps", -1, 30, 12, TRUE },
  { "max_steps", 20, 30, 20, TRUE },
  { "max_steps", -1, 5, 5, FALSE },
  { "max_steps", 40, 30, 30, FALSE },
  { "max_steps", 20, 20, 20, FALSE },
  { "max_render_chars", -1, 4000, 2000, TRUE },
  { "max_render_chars", 3000, 3001, 3000, TRUE },
  { "max_render_chars", -1, 500, 500, FALSE },
  { "max_render_chars", 6000, 4000, 4000, FALSE },
};

static void
test_project_lower_only (Fixture       *f,
                         gconstpointer  data)
{
  const LowerCase *c = data;
  g_autofree char *global = NULL;
  g_autofree char *project = g_strdup_printf ("{\"planning\": {\"%s\": %d}}", c->key, c->project);
  g_autoptr(PdConfig) config = NULL;

  if (c->global >= 0)
    global = g_strdup_printf ("{\"planning\": {\"%s\": %d}}", c->key, c->global);
  config = load (f, global, project);

  g_assert_cmpuint (get_limit (config, c->key), ==, c->expected);

  if (c->warns)
    {
      g_autofree char *expected =
        g_strdup_printf ("project config %s: planning.%s %d ignored: a project may only lower it (global value %u)",
                         f->project_path, c->key, c->project, c->expected);
      assert_one_warning (config, expected);
    }
  else
    assert_no_warnings (config);
}

static void
test_project_clamp_low (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdConfig) config =
    load (f, NULL, "{\"planning\": {\"max_steps\": 0, \"max_render_chars\": 10}}");
  g_autofree char *steps = g_strdup_printf ("project config %s: planning.max_steps 0 is out of range 1..50; using 1",
                                            f->project_path);
  g_autofree char *render = g_strdup_printf ("project config %s: planning.max_render_chars 10 is out of range 200..8000; using 200",
                                             f->project_path);
  const char * const expected[] = { steps, render, NULL };

  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 1);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 200);
  assert_warnings (config, expected);
}

static void
test_project_opt_out (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdConfig) config = load (f,
                                     "{\"planning\": {\"enabled\": true}}",
                                     "{\"planning\": {\"enabled\": false}}");

  g_assert_false (pd_config_get_planning_enabled (config));
  assert_no_warnings (config);
}

static void
test_project_enable_over_global_off (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(PdConfig) config = load (f,
                                     "{\"planning\": {\"enabled\": false}}",
                                     "{\"planning\": {\"enabled\": true}}");
  g_autofree char *expected =
    g_strdup_printf ("project config %s: planning.enabled true ignored: a project may only turn it off",
                     f->project_path);

  g_assert_false (pd_config_get_planning_enabled (config));
  assert_one_warning (config, expected);
}

static void
test_project_enable_when_global_on (Fixture       *f,
                                    gconstpointer  data)
{
  /* Saying what is already true is not a mistake. */
  g_autoptr(PdConfig) config = load (f, NULL, "{\"planning\": {\"enabled\": true}}");

  g_assert_true (pd_config_get_planning_enabled (config));
  assert_no_warnings (config);
}

static void
test_invalid_json (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdConfig) config = load (f, "{ \"planning\": { \"max_steps\": 3 ", "{\"planning\": {\"max_steps\": 7}}");
  const char * const *warnings = pd_config_get_warnings (config);
  g_autofree char *prefix = g_strdup_printf ("global config %s: ignored: not valid JSON: ", f->global_path);

  /* The broken global file is skipped whole; the project still applies. */
  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 7);
  g_assert_null (pd_config_get_global_path (config));
  g_assert_cmpstr (pd_config_get_project_path (config), ==, f->project_path);
  g_assert_cmpuint (g_strv_length ((char **) warnings), ==, 1);
  g_assert_true (g_str_has_prefix (warnings[0], prefix));
  g_assert_null (strstr (warnings[0], "<data>"));
}

typedef struct
{
  const char *name;
  const char *contents;
  gssize length;
  const char *warning;   /* after "global config PATH: " */
} BadFileCase;

static const BadFileCase bad_file_cases[] = {
  { "top-level-array", "[1, 2]", -1, "ignored: the top level must be a JSON object, not an array" },
  { "top-level-string", "\"planning\"", -1, "ignored: the top level must be a JSON object, not a string" },
  { "empty", "", 0, "ignored: the file is empty (write {} for an empty config)" },
  { "whitespace", " \n\t\n", -1, "ignored: the file is empty (write {} for an empty config)" },
  { "not-utf8", "{\"planning\": {\"enabled\": \xff}}", -1, "ignored: the file is not valid UTF-8 text" },
  { "nul-byte", "{\"planning\": {}}\0{", 18, "ignored: the file is not valid UTF-8 text" },
  { "planning-not-object", "{\"planning\": true}", -1, "\"planning\" must be an object, not true; the section is ignored" },
  { "planning-array", "{\"planning\": [12]}", -1, "\"planning\" must be an object, not an array; the section is ignored" },
  { "enabled-string", "{\"planning\": {\"enabled\": \"false\"}}", -1, "planning.enabled must be true or false, not a string; ignored" },
  { "enabled-number", "{\"planning\": {\"enabled\": 0}}", -1, "planning.enabled must be true or false, not 0; ignored" },
  { "steps-string", "{\"planning\": {\"max_steps\": \"12\"}}", -1, "planning.max_steps must be a whole number, not a string; ignored" },
  { "steps-fraction", "{\"planning\": {\"max_steps\": 12.5}}", -1, "planning.max_steps must be a whole number, not 12.5; ignored" },
  { "steps-null", "{\"planning\": {\"max_steps\": null}}", -1, "planning.max_steps must be a whole number, not null; ignored" },
  { "steps-bool", "{\"planning\": {\"max_steps\": true}}", -1, "planning.max_steps must be a whole number, not true; ignored" },
  { "steps-infinite", "{\"planning\": {\"max_steps\": 1e400}}", -1, "planning.max_steps must be a whole number, not inf; ignored" },
  { "render-object", "{\"planning\": {\"max_render_chars\": {}}}", -1, "planning.max_render_chars must be a whole number, not an object; ignored" },
  { "unknown-key", "{\"planning\": {\"max_step\": 5}}", -1, "unknown key planning.max_step ignored (known keys: enabled, max_steps, max_render_chars)" },
  { "unknown-key-newline", "{\"planning\": {\"a\\nwarning: b\": 5}}", -1, "unknown key planning.a?warning: b ignored (known keys: enabled, max_steps, max_render_chars)" },
};

static void
test_bad_file (Fixture       *f,
               gconstpointer  data)
{
  const BadFileCase *c = data;
  g_autofree char *expected = g_strdup_printf ("global config %s: %s", f->global_path, c->warning);
  g_autoptr(PdConfig) config = NULL;

  write_file (f->global_path, c->contents, c->length);
  config = load (f, NULL, NULL);

  assert_defaults (config);
  assert_one_warning (config, expected);
}

static void
test_bad_values_keep_good_ones (Fixture       *f,
                                gconstpointer  data)
{
  /* One wrong key must not throw away its neighbours. */
  g_autoptr(PdConfig) config = load (f,
                                     "{\"planning\": {\"enabled\": \"no\", \"max_steps\": 9, \"colour\": 1}}",
                                     NULL);
  g_autofree char *w1 = g_strdup_printf ("global config %s: planning.enabled must be true or false, not a string; ignored",
                                         f->global_path);
  g_autofree char *w2 = g_strdup_printf ("global config %s: unknown key planning.colour ignored (known keys: enabled, max_steps, max_render_chars)",
                                         f->global_path);
  const char * const expected[] = { w1, w2, NULL };

  g_assert_true (pd_config_get_planning_enabled (config));
  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 9);
  assert_warnings (config, expected);
}

static void
test_long_key_truncated (Fixture       *f,
                         gconstpointer  data)
{
  /* One silly key must not flood the terminal: echoed text is cut at 80. */
  g_autofree char *key = g_strnfill (200, 'k');
  g_autofree char *shown = g_strnfill (80, 'k');
  g_autofree char *json = g_strdup_printf ("{\"planning\": {\"%s\": 1}}", key);
  g_autofree char *expected =
    g_strdup_printf ("global config %s: unknown key planning.%s… ignored (known keys: enabled, max_steps, max_render_chars)",
                     f->global_path, shown);
  g_autoptr(PdConfig) config = load (f, json, NULL);

  assert_defaults (config);
  assert_one_warning (config, expected);
}

static void
test_unreadable (Fixture       *f,
                 gconstpointer  data)
{
  /* A folder where the file should be: works the same as root or not. */
  g_autofree char *expected = g_strdup_printf ("global config %s: ignored: not a regular file", f->global_path);
  g_autoptr(PdConfig) config = NULL;

  g_assert_no_errno (g_mkdir (f->global_path, 0700));
  config = load (f, NULL, NULL);

  assert_defaults (config);
  assert_one_warning (config, expected);
}

static void
test_not_a_folder (Fixture       *f,
                   gconstpointer  data)
{
  /* A path through a file is not "missing": something is wrong to fix. */
  g_autofree char *global = g_build_filename (f->project_path, "config.json", NULL);
  g_autofree char *expected = g_strdup_printf ("global config %s: could not be read: %s",
                                               global, g_strerror (ENOTDIR));
  g_autoptr(PdConfig) config = NULL;

  write_file (f->project_path, "{}", -1);
  f->options.global_path = global;
  config = pd_config_load (&f->options);

  assert_defaults (config);
  assert_one_warning (config, expected);
}

static void
test_deep_nesting (Fixture       *f,
                   gconstpointer  data)
{
  /* json-glib would overflow the stack on this; it must be refused. */
  gsize depth = 200000;
  g_autofree char *contents = g_malloc (depth + 1);
  g_autofree char *expected = g_strdup_printf ("global config %s: ignored: the JSON nests deeper than 128 levels",
                                               f->global_path);
  g_autoptr(PdConfig) config = NULL;

  memset (contents, '[', depth);
  contents[depth] = '\0';
  write_file (f->global_path, contents, (gssize) depth);
  config = load (f, NULL, NULL);

  assert_defaults (config);
  assert_one_warning (config, expected);
}

static void
test_brackets_in_strings (Fixture       *f,
                          gconstpointer  data)
{
  /* Brackets inside strings (and escaped quotes) are not nesting. */
  GString *contents = g_string_new ("{\"plan_mode\": {\"section\": \"\\\"");
  g_autoptr(PdConfig) config = NULL;

  for (guint i = 0; i < 1000; i++)
    g_string_append (contents, "[{");
  g_string_append (contents, "\"}, \"planning\": {\"max_steps\": 9}}");
  write_file (f->global_path, contents->str, -1);
  g_string_free (contents, TRUE);

  config = load (f, NULL, NULL);
  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 9);
  assert_no_warnings (config);
}

static void
test_lenient_forms (Fixture       *f,
                    gconstpointer  data)
{
  /* A byte order mark and 20.0 for 20 are what editors and generators
   * write; neither is worth a warning. */
  g_autoptr(PdConfig) config =
    load (f, "\xEF\xBB\xBF{\"planning\": {\"max_steps\": 20.0, \"max_render_chars\": 3e3}}", NULL);

  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 20);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 3000);
  assert_no_warnings (config);
}

static void
test_huge_numbers (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdConfig) config = load (f, "{\"planning\": {\"max_steps\": 1e300, \"max_render_chars\": -1e300}}", NULL);
  g_autofree char *w1 = g_strdup_printf ("global config %s: planning.max_steps 1.0000000000000001e+300 is out of range 1..50; using 50",
                                         f->global_path);
  g_autofree char *w2 = g_strdup_printf ("global config %s: planning.max_render_chars -1.0000000000000001e+300 is out of range 200..8000; using 200",
                                         f->global_path);
  const char * const expected[] = { w1, w2, NULL };

  g_assert_cmpuint (pd_config_get_planning_max_steps (config), ==, 50);
  g_assert_cmpuint (pd_config_get_planning_max_render_chars (config), ==, 200);
  assert_warnings (config, expected);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_config_init (&argc, &argv);
  int status;

  ADD ("/pd/config/defaults", test_defaults);
  ADD ("/pd/config/missing-folder", test_missing_folder);
  ADD ("/pd/config/default-paths", test_default_paths);
  ADD ("/pd/config/global/values", test_global_values);
  ADD ("/pd/config/env/disable", test_env_disable);
  ADD ("/pd/config/env/enable-over-global-off", test_env_enable_over_global_off);
  ADD ("/pd/config/env/invalid", test_env_invalid);
  ADD ("/pd/config/env/empty", test_env_empty);
  ADD ("/pd/config/env/ignored", test_env_ignored);
  ADD ("/pd/config/cli/disable", test_cli_disable);
  ADD ("/pd/config/cli/enable-over-global-off", test_cli_enable_over_global_off);
  ADD ("/pd/config/cli/limits-override", test_cli_limits_override);

  for (guint i = 0; i < G_N_ELEMENTS (clamp_cases); i++)
    {
      const ClampCase *c = &clamp_cases[i];
      g_autofree char *global = g_strdup_printf ("/pd/config/clamp/global/%s/%d", c->key, c->given);
      g_autofree char *cli = g_strdup_printf ("/pd/config/clamp/cli/%s/%d", c->key, c->given);

      ADD_DATA (global, c, test_clamp_global);
      ADD_DATA (cli, c, test_clamp_cli);
    }

  for (guint i = 0; i < G_N_ELEMENTS (lower_cases); i++)
    {
      const LowerCase *c = &lower_cases[i];
      g_autofree char *path = g_strdup_printf ("/pd/config/project/lower-only/%s/global-%d-project-%d",
                                               c->key, c->global, c->project);

      ADD_DATA (path, c, test_project_lower_only);
    }

  ADD ("/pd/config/project/clamp-low", test_project_clamp_low);
  ADD ("/pd/config/project/opt-out", test_project_opt_out);
  ADD ("/pd/config/project/enable-over-global-off", test_project_enable_over_global_off);
  ADD ("/pd/config/project/enable-when-global-on", test_project_enable_when_global_on);

  ADD ("/pd/config/invalid/json", test_invalid_json);
  for (guint i = 0; i < G_N_ELEMENTS (bad_file_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/pd/config/invalid/", bad_file_cases[i].name, NULL);

      ADD_DATA (path, &bad_file_cases[i], test_bad_file);
    }
  ADD ("/pd/config/invalid/keep-good-values", test_bad_values_keep_good_ones);
  ADD ("/pd/config/invalid/long-key", test_long_key_truncated);
  ADD ("/pd/config/invalid/folder", test_unreadable);
  ADD ("/pd/config/invalid/not-a-folder", test_not_a_folder);
  ADD ("/pd/config/invalid/deep-nesting", test_deep_nesting);
  ADD ("/pd/config/brackets-in-strings", test_brackets_in_strings);
  ADD ("/pd/config/lenient-forms", test_lenient_forms);
  ADD ("/pd/config/huge-numbers", test_huge_numbers);

  status = g_test_run ();
  pd_test_config_finish (config_home);

  return status;
}
