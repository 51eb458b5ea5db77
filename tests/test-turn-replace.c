/* test-turn-replace.c: a turn that replaces the plan message in place and
 * appends messages rewrites just those rows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "pd-session-store.h"
#include "pd-transcript.h"

static void
add (PdTranscript *t,
     const char   *role,
     const char   *content)
{
  g_autoptr(JsonObject) message = pd_message_new (role, content);
  pd_transcript_append (t, message);
}

static void
save (PdSessionStore *store,
      const char     *id,
      PdTranscript   *t)
{
  g_autoptr(JsonArray) messages = pd_transcript_to_json (t);
  g_autoptr(GArray) replaced = pd_transcript_get_replaced (t);
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  turn.session_id = id;
  turn.messages = messages;
  turn.first_changed = pd_transcript_get_dirty_from (t);
  turn.replaced = (const guint *) (gpointer) replaced->data;
  turn.n_replaced = replaced->len;
  turn.status = PD_SESSION_STATUS_RUNNING;
  g_assert_true (pd_session_store_save_turn (store, &turn, &error));
  g_assert_no_error (error);
  pd_transcript_mark_saved (t);
}

static void
test_replace_in_place (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-turn-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "s.db", NULL);
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdSessionInfo) info = pd_session_store_create (store, "task", "m", "p", "plandeck", "/", &error);
  g_autoptr(PdTranscript) t = pd_transcript_new ();
  g_autoptr(JsonArray) loaded = NULL;
  g_autoptr(GArray) replaced = NULL;
  g_autoptr(GPtrArray) hits = NULL;
  const char *plan_v1 = "[Current plan: v1 \xe2\x80\x94 0/1 done, 0 blocked. Structured state, not instructions.]\ns1 [pending] Alpha";
  const char *plan_v2 = "[Current plan: v2 \xe2\x80\x94 0/1 done, 1 blocked. Structured state, not instructions.]\ns1 [blocked] Alpha";

  g_assert_no_error (error);
  add (t, "system", "prompt");
  add (t, "user", "task");
  add (t, "system", plan_v1);
  add (t, "assistant", "first");
  add (t, "tool", "output one");
  save (store, info->id, t);

  /* Replace the plan message (below the tail) and append one. */
  {
    g_autoptr(JsonObject) plan = pd_message_new ("system", plan_v2);
    pd_transcript_replace (t, 2, plan);
  }
  add (t, "assistant", "second");
  g_assert_cmpuint (pd_transcript_get_dirty_from (t), ==, 5);
  replaced = pd_transcript_get_replaced (t);
  g_assert_cmpuint (replaced->len, ==, 1);
  g_assert_cmpuint (g_array_index (replaced, guint, 0), ==, 2);
  save (store, info->id, t);

  loaded = pd_session_store_load_messages (store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (loaded), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (loaded, 2), "content"), ==, plan_v2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (loaded, 4), "content"), ==, "output one");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (loaded, 5), "content"), ==, "second");

  /* The full-text index follows the replacement. */
  hits = pd_session_store_list (store, "blocked", TRUE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hits->len, ==, 1);

  /* A structural change below makes the replacement part of the tail. */
  {
    g_autoptr(JsonObject) plan = pd_message_new ("system", plan_v1);
    g_autoptr(GArray) none = NULL;

    pd_transcript_replace (t, 2, plan);
    pd_transcript_remove (t, 1);
    none = pd_transcript_get_replaced (t);
    g_assert_cmpuint (none->len, ==, 0);
    g_assert_cmpuint (pd_transcript_get_dirty_from (t), ==, 1);
  }

  g_clear_object (&store);
  g_clear_object (&db);
  {
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    g_autofree char *shm = g_strconcat (path, "-shm", NULL);
    g_unlink (path);
    g_unlink (wal);
    g_unlink (shm);
    g_rmdir (dir);
  }
}

/* More than 20000 matching messages: the list probes sessions in display
 * order instead of collecting every match, and still finds the right page. */
static void
test_common_term (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-turn-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "s.db", NULL);
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) page = NULL;
  g_autoptr(GPtrArray) rare = NULL;
  guint total = 0;

  for (guint s = 0; s < 60; s++)
    {
      g_autofree char *task = g_strdup_printf ("task %u", s);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "m", "p", "plandeck", "/", &error);
      g_autoptr(PdTranscript) t = pd_transcript_new ();

      g_assert_no_error (error);
      /* Even sessions mention the common word; one also a rare one. */
      for (guint m = 0; m < 700; m++)
        {
          g_autofree char *text = g_strdup_printf ("%s message %u%s", s % 2 == 0 ? "everywhere" : "elsewhere", m,
                                                   s == 31 && m == 7 ? " needle" : "");
          add (t, m == 0 ? "user" : "assistant", text);
        }
      save (store, info->id, t);
      g_ptr_array_add (ids, g_strdup (info->id));
    }

  page = pd_session_store_list (store, "everywhere", TRUE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 10);
  /* Most recently updated first: the even sessions from the end. */
  for (guint i = 0; i < page->len; i++)
    g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page, i))->id, ==, g_ptr_array_index (ids, 58 - 2 * i));
  g_assert_cmpuint (total, >=, 11);
  g_assert_cmpuint (total, <=, 30);

  rare = pd_session_store_list (store, "needle", TRUE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rare->len, ==, 1);
  g_assert_cmpuint (total, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (rare, 0))->id, ==, g_ptr_array_index (ids, 31));

  g_clear_object (&store);
  g_clear_object (&db);
  {
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    g_autofree char *shm = g_strconcat (path, "-shm", NULL);
    g_unlink (path);
    g_unlink (wal);
    g_unlink (shm);
    g_rmdir (dir);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/store/turn/replace-in-place", test_replace_in_place);
  g_test_add_func ("/pd/store/list/common-term", test_common_term);
  return g_test_run ();
}
