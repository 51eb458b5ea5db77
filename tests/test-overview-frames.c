/* test-overview-frames.c: PdOverview's merge of a list keeps its turn
 * while frames are always due
 *
 * A window whose frames each take longer than the frame interval (a
 * software renderer on a loaded machine, a spinner turning) has its frame
 * clock's paint always due, at GDK_PRIORITY_REDRAW
 * (G_PRIORITY_HIGH_IDLE + 20): a source of that priority always ready
 * stands in for it here, a real local source's list beside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview-frames"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-overview.h"
#include "pd-session-store.h"

/* GDK's, without GDK in the core. */
#define FRAME_PRIORITY (G_PRIORITY_HIGH_IDLE + 20)
#define FRAME_USEC 2000

typedef struct
{
  guint frames;          /* frames since the first card came */
  guint bare;            /* of them, those with no part merged since the frame before */
  guint most_bare;       /* the most frames in a row with no part between */
  guint run;
  guint added_since;     /* cards added since the last frame */
  guint cards;
} Frames;

static gboolean
on_frame (gpointer data)
{
  Frames *frames = data;

  /* A frame longer than its interval: the next is due at once. */
  g_usleep (FRAME_USEC);
  if (frames->cards > 0)
    {
      frames->frames++;
      if (frames->added_since == 0)
        {
          frames->bare++;
          frames->run++;
          frames->most_bare = MAX (frames->most_bare, frames->run);
        }
      else
        frames->run = 0;
    }
  frames->added_since = 0;
  return G_SOURCE_CONTINUE;
}

static void
on_cards_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Frames     *frames)
{
  frames->added_since += added;
  frames->cards += added;
}

/* Before, the merge waited at G_PRIORITY_DEFAULT_IDLE, below the frames,
 * and got a part only from a timeout every 100 ms: 150 cards took 5 such
 * timeouts, hundreds of frames with no part between.  Now a part comes
 * with every frame. */
static void
test_merge_beside_frames (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-overview-frames-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "local.db", NULL);
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdLocalSource) local = NULL;
  g_autoptr(PdOverview) overview = NULL;
  const char *suffixes[] = { "", "-wal", "-shm" };
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  Frames frames = { 0 };
  guint frame_id;

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *task = g_strdup_printf ("Work %u", i);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "m", "replay", "plandeck", "/tmp", &error);

      g_assert_no_error (error);
    }
  local = pd_local_source_new (path, FALSE);
  g_list_store_append (sources, local);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  g_signal_connect (overview, "items-changed", G_CALLBACK (on_cards_changed), &frames);
  frame_id = g_timeout_add_full (FRAME_PRIORITY, 0, on_frame, &frames, NULL);
  while (!pd_overview_get_loaded (overview) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (frame_id);

  g_test_message ("150 cards in %u frames, %u of them with no part merged before them, at most %u in a row",
                  frames.frames, frames.bare, frames.most_bare);
  g_assert_true (pd_overview_get_loaded (overview));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (overview)), ==, 150);
  /* A part (at most 32 cards) with every frame: 5 frames, a few more
   * for the parts cut short by their time budget under load. */
  g_assert_cmpuint (frames.most_bare, <=, 1);
  g_assert_cmpuint (frames.frames, <=, 20);

  g_signal_handlers_disconnect_by_data (overview, &frames);
  g_clear_object (&overview);
  g_clear_object (&local);
  g_clear_object (&store);
  g_clear_object (&db);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  for (guint j = 0; j < G_N_ELEMENTS (suffixes); j++)
    {
      g_autofree char *file = g_strconcat (path, suffixes[j], NULL);
      g_unlink (file);
    }
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/overview/merge-beside-frames", test_merge_beside_frames);
  return g_test_run ();
}
