/* pd-test-look-alike.h: what the look-alike tests share: a shell call's
 * preview and summary checked against what they must show, and whether
 * the call is asked with controls.  Shared by test-look-alike.c and
 * test-look-alike-quoted.c (it was copied into each); header-only because
 * the test list builds one source file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib/gstdio.h>

#include "pd-approver.h"
#include "pd-shell-tool.h"
#include "pd-test-tools.h"

typedef struct
{
  const char *json;
  const char *shown;
  gboolean    marked;
} LookAlikeCase;

/* The preview and the summary of a shell call of each case's @json show
 * @shown (a command of several lines: "$ " before the first, "  " before
 * each next, and "\\n" between them in the summary), and the call is asked
 * with controls just when @marked. */
static inline void
assert_look_alike (const LookAlikeCase *cases,
                   gsize                n_cases)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdToolContext) context = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-approver-XXXXXX", &error);

  g_assert_no_error (error);
  context = pd_tool_context_new (dir, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < n_cases; i++)
    {
      g_autoptr(JsonObject) args = parse_args_owned (g_strdup_printf ("{\"command\":\"%s\"}", cases[i].json));
      g_autofree char *preview = pd_tool_preview (shell, context, args, NULL);
      g_autofree char *summary = pd_approver_summarize (shell, args);
      g_autofree char *one_line = NULL;
      g_autofree char *expected_preview = NULL;
      g_autofree char *expected_summary = NULL;
      g_auto(GStrv) lines = g_strsplit (cases[i].shown, "\n", -1);

      /* a command of several lines: "$ " then "  " before each */
      one_line = g_strjoinv ("\\n", lines);
      {
        g_autofree char *laid_out = g_strjoinv ("\n  ", lines);

        expected_preview = g_strdup_printf ("In %s:\n$ %s\n", dir, laid_out);
      }
      expected_summary = g_strdup_printf ("shell: %s", one_line);

      g_test_message ("%s", cases[i].json);
      g_assert_cmpstr (preview, ==, expected_preview);
      g_assert_cmpstr (summary, ==, expected_summary);
      g_assert_cmpint (pd_approver_args_have_controls (args), ==, cases[i].marked);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}
