/* pd-test-db.c: a real session database in a temporary folder, and the
 * waits, windows and screenshots the view tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-test-db"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-event.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

PdTestDb *
pd_test_db_new (void)
{
  PdTestDb *db = g_new0 (PdTestDb, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) handle = NULL;

  db->dir = g_dir_make_tmp ("pd-test-views-XXXXXX", &error);
  g_assert_no_error (error);
  db->path = g_build_filename (db->dir, "sessions.db", NULL);
  handle = pd_db_open (db->path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  db->store = pd_session_store_new (handle);
  db->source = pd_local_source_new (db->path, FALSE);

  return db;
}

void
pd_test_db_free (PdTestDb *db)
{
  const char *suffixes[] = { "", "-wal", "-shm" };

  /* The views read through the source and are gone by now: they hold
   * neither it nor anything of the store. */
  pd_test_assert_finalized (g_steal_pointer (&db->source));
  pd_test_assert_finalized (g_steal_pointer (&db->store));
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *file = g_strconcat (db->path, suffixes[i], NULL);

      g_unlink (file);
    }
  g_rmdir (db->dir);
  g_free (db->path);
  g_free (db->dir);
  g_free (db);
}

char *
pd_test_db_create_session (PdTestDb   *db,
                           const char *task)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_create (db->store, task, "test-model", "replay",
                                                           "plandeck", "/tmp", &error);

  g_assert_no_error (error);
  return g_strdup (info->id);
}

void
pd_test_db_save (PdTestDb    *db,
                 const char  *session_id,
                 JsonArray   *messages,
                 guint        first_changed,
                 PdPlanState *plan)
{
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  turn.session_id = session_id;
  turn.messages = messages;
  turn.first_changed = first_changed;
  turn.plan = plan;
  turn.count_turn = TRUE;
  turn.status = PD_SESSION_STATUS_RUNNING;
  g_assert_true (pd_session_store_save_turn (db->store, &turn, &error));
  g_assert_no_error (error);
}

gint64
pd_test_db_add_event (PdTestDb   *db,
                      const char *session_id,
                      const char *type,
                      const char *tool,
                      guint       iteration,
                      const char *data_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json_from_string (data_json ? data_json : "{}", &error);
  g_autoptr(PdEvent) event = NULL;
  g_autofree char *text = NULL;
  gint64 seq;

  g_assert_no_error (error);
  event = pd_event_new_full (type, "run-1", session_id, iteration, tool,
                             json_object_ref (json_node_get_object (data)));
  text = pd_event_to_json (event);
  seq = pd_session_store_add_event (db->store, session_id, "run-1", type,
                                   pd_event_get_timestamp (event), text, &error);
  g_assert_no_error (error);
  g_assert_cmpint (seq, >, 0);

  return seq;
}

JsonObject *
pd_test_message (const char *role,
                 const char *content)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  json_object_set_string_member (message, "content", content);
  return message;
}

/* Iterates the main context until @condition holds, or FALSE after
 * PD_TEST_WAIT_MS (a hang detector, not a timing). */
gboolean
pd_test_wait_for (PdTestCondition condition,
                  gpointer        user_data)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) PD_TEST_WAIT_MS * 1000;

  while (!condition (user_data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      /* Non-blocking, so the deadline is honoured even when nothing wakes us. */
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }

  return TRUE;
}

void
pd_test_spin (guint ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (2000);
}

static gboolean
is_drawn (gpointer user_data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (user_data));
}

GtkWindow *
pd_test_present (GtkWidget *child,
                 int        width,
                 int        height)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_set_child (GTK_WINDOW (window), child);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (pd_test_wait_for (is_drawn, window));
  gtk_test_widget_wait_for_draw (window);

  return GTK_WINDOW (window);
}

static gboolean
has_width (gpointer data)
{
  GtkWidget *widget = data;
  int wanted = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "pd-test-width"));

  return gtk_widget_get_width (widget) <= wanted;
}

/**
 * pd_test_screenshot_sizes:
 * @window: a shown window (a dialog too)
 * @name: the file name's stem
 *
 * When PD_TEST_SCREENSHOT_DIR is set: @name.png at the window's size, then
 * @name-360.png with the window made 360 px wide, then the size it had.
 */
void
pd_test_screenshot_sizes (GtkWindow  *window,
                          const char *name)
{
  g_autofree char *narrow = g_strconcat (name, "-360", NULL);
  int width = 0;
  int height = 0;

  if (g_getenv ("PD_TEST_SCREENSHOT_DIR") == NULL)
    return;

  /* Past a dialog's show animation. */
  pd_test_spin (400);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  pd_test_screenshot (GTK_WIDGET (window), name);

  gtk_window_get_default_size (window, &width, &height);
  g_object_set_data (G_OBJECT (window), "pd-test-width", GINT_TO_POINTER (400));
  gtk_window_set_default_size (window, 360, height > 0 ? height : gtk_widget_get_height (GTK_WIDGET (window)));
  pd_test_wait_for (has_width, window);
  pd_test_spin (200);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  pd_test_screenshot (GTK_WIDGET (window), narrow);
  gtk_window_set_default_size (window, width, height);
}

/* Saves @widget as PD_TEST_SCREENSHOT_DIR/@name.png when that is set: the
 * review artifacts, never compared. */
void
pd_test_screenshot (GtkWidget  *widget,
                    const char *name)
{
  const char *dir = g_getenv ("PD_TEST_SCREENSHOT_DIR");
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *file = NULL;
  g_autofree char *png = NULL;
  GskRenderer *renderer;
  int width;
  int height;

  if (dir == NULL)
    return;

  gtk_test_widget_wait_for_draw (widget);
  width = gtk_widget_get_width (widget);
  height = gtk_widget_get_height (widget);
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  png = g_strconcat (name, ".png", NULL);
  file = g_build_filename (dir, png, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, file));
  g_test_message ("screenshot: %s", file);
}

static gboolean
is_label_containing (GtkWidget     *widget,
                     gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

GtkWidget *
pd_test_find_label_containing (GtkWidget  *root,
                               const char *text)
{
  return pd_test_find_first (root, is_label_containing, text);
}

void
pd_test_collect (GtkWidget *root,
                 GType      type,
                 GPtrArray *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    g_ptr_array_add (out, root);

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    pd_test_collect (child, type, out);
}

/* The labels a person can see that say @text: mapped, and not in a
 * revealer that hides them — with @settled, one that has finished
 * revealing them; without, one that is to show them (its animation may
 * still run). */
guint
pd_test_count_shown_labels (GtkWidget  *root,
                            const char *text,
                            gboolean    settled)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      GtkWidget *revealer = gtk_widget_get_ancestor (label, GTK_TYPE_REVEALER);
      gboolean shown = revealer == NULL || (settled ? gtk_revealer_get_child_revealed (GTK_REVEALER (revealer))
                                                    : gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));

      if (gtk_widget_get_mapped (label) && strstr (gtk_label_get_text (GTK_LABEL (label)), text) != NULL && shown)
        n++;
    }
  return n;
}

/* gtk_test_init, libadwaita, and the application's style sheet, which an
 * AdwApplication would load; the view tests run without one. */
void
pd_test_views_init (int    *argc,
                    char ***argv)
{
  g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

  gtk_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

  gtk_css_provider_load_from_resource (css, "/io/github/plandeck/Plandeck/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}
