/* pd-checklist-test.h: a session imported from a synthetic Claude Code
 * transcript, in a real session database, for the checklist tests of
 * PdSource and PdChecklistView.
 *
 * The transcript: a plan (ExitPlanMode, approved), then a TodoWrite list of
 * three items (completed, in progress, pending); the second one's text is
 * markup, to be shown literally.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-import-index.h"
#include "pd-test-files.h"

#define PD_CHECKLIST_TEST_ITEM_0 "Read the parser"
#define PD_CHECKLIST_TEST_ITEM_1 "Fix <b>x</b> escaping"
#define PD_CHECKLIST_TEST_ITEM_2 "Zanzibar write the tests"
#define PD_CHECKLIST_TEST_PLAN   "# Parser plan\n- Fix the escaping\n- Add tests"

static const char * const pd_checklist_test_lines[] = {
  "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
  "\"message\":{\"role\":\"user\",\"content\":\"Fix the parser\"}}",
  "{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:01Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
  "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"p1\",\"name\":\"ExitPlanMode\","
  "\"input\":{\"plan\":\"# Parser plan\\n- Fix the escaping\\n- Add tests\"}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:02Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
  "\"tool_use_id\":\"p1\",\"content\":\"User has approved your plan.\",\"is_error\":false}]},"
  "\"toolUseResult\":{\"plan\":\"# Parser plan\\n- Fix the escaping\\n- Add tests\",\"isAgent\":false}}",
  "{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:03Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
  "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"TodoWrite\","
  "\"input\":{\"todos\":[{\"content\":\"Read the parser\",\"status\":\"completed\",\"activeForm\":\"Reading\"},"
  "{\"content\":\"Fix <b>x</b> escaping\",\"status\":\"in_progress\",\"activeForm\":\"Fixing\"},"
  "{\"content\":\"Zanzibar write the tests\",\"status\":\"pending\",\"activeForm\":\"Writing\"}]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:04Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
  "\"tool_use_id\":\"tu1\",\"content\":\"ok\",\"is_error\":false}]}}",
  NULL
};

/* Writes the transcript under @dir (laid out like ~/.claude/projects) and
 * indexes it into @store.  Returns the session's id. */
static inline char *
pd_checklist_test_import (PdSessionStore *store,
                          const char     *dir)
{
  g_autofree char *project = g_build_filename (dir, "-work-app", NULL);
  g_autofree char *path = g_build_filename (project, "0b7c0c1e-5f7e-4d21-9a43-3c2d1e0f9a11.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[] = { dir, NULL };
  PdSessionInfo *info;

  for (guint i = 0; pd_checklist_test_lines[i]; i++)
    g_string_append_printf (text, "%s\n", pd_checklist_test_lines[i]);
  g_mkdir_with_parents (project, 0700);
  g_file_set_contents (path, text->str, (gssize) text->len, &error);
  g_assert_no_error (error);

  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);

  list = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  info = g_ptr_array_index (list, 0);
  return g_strdup (info->id);
}

