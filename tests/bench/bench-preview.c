/* bench-preview.c: what an approval's preview costs on a long command.
 *
 * usage: bench-preview [KIB [NAME]]
 *
 * A model can send a shell call of any length, and every one put to a
 * person is previewed, summarized and checked for what reads as something
 * else (pd_tool_preview(), pd_approver_summarize(),
 * pd_approver_args_have_controls()).  Four commands of KIB (1 024 by
 * default) each: ASCII shell lines, Russian prose with Latin words
 * (`CI-пайплайн`), Chinese prose with fullwidth punctuation, and words
 * each mixing Latin and Cyrillic letters (all escaped), Russian and Greek
 * prose beside Latin words (escaped by no version), and quoted English
 * prose with curly quotes beside an apostrophe out of pairs.  Prints the CPU
 * time of each (NAME: that one only); run under callgrind for
 * instructions.  Asserts nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-approver.h"
#include "pd-shell-tool.h"
#include "pd-tool.h"

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *
build (const char *piece,
       gsize       bytes)
{
  GString *out = g_string_sized_new (bytes + 64);

  while (out->len < bytes)
    g_string_append (out, piece);
  return g_string_free (out, FALSE);
}

int
main (int   argc,
      char *argv[])
{
  static const struct
  {
    const char *name;
    const char *piece;
  } texts[] = {
    { "ascii", "cd build && make -j4 check | tee log.txt; echo done\n" },
    { "russian", "git commit -m 'Обновил README и CI-пайплайн для iOS-версии'\n" },
    { "chinese", "echo 修复登录问题，添加测试（单元）\n" },
    { "mixed", "rm -rf /tmp/p\xd0\xb0ypal /h\xd6\x85me\n" },
    { "prose", "echo 'Привет мир' && echo 'Γειά σου κόσμε' v2\n" },
    /* quoted prose, its quotes followed (pd-tool-look-alike.c), an odd ’
     * looking ahead for a later ' on each line */
    { "quoted", "git commit -m \"It\u2019s \u201cfine\u201d \u2013 really \u2026 5\u00a0km\" && echo 'it\u2019s ok' x\n" },
  };
  gsize kib = argc > 1 ? (gsize) g_ascii_strtoull (argv[1], NULL, 10) : 1024;
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-preview-XXXXXX", &error);
  g_autoptr(PdToolContext) context = NULL;

  g_assert_no_error (error);
  context = pd_tool_context_new (dir, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *command = build (texts[i].piece, kib * 1024);
      g_autoptr(JsonObject) args = json_object_new ();
      double start;
      gboolean controls;

      if (argc > 2 && strcmp (argv[2], texts[i].name) != 0)
        continue;
      json_object_set_string_member (args, "command", command);
      start = cpu_now ();
      {
        g_autofree char *preview = pd_tool_preview (shell, context, args, NULL);
        g_autofree char *summary = pd_approver_summarize (shell, args);

        controls = pd_approver_args_have_controls (args);
        g_print ("%-8s %6" G_GSIZE_FORMAT " KiB: %.3f s, preview %" G_GSIZE_FORMAT
                 " bytes, controls %s\n", texts[i].name, kib, cpu_now () - start,
                 strlen (preview), controls ? "yes" : "no");
      }
    }
  g_rmdir (dir);
  return 0;
}
