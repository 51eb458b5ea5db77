/* test-session-list-top.c: the sidebar's session list stays at its top
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A PdSessionList in a real window reads a PdLocalSource over a database
 * written through the core store API; at its top, it stays there as
 * sessions come first, and as they change and move up under a pinned one.
 * (Split from test-session-list.c, which holds the rest of the list.)
 */
#define G_LOG_DOMAIN "test-session-list-top"

#include "config.h"

#include "pd-local-source.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-session-list.h"
#include "pd-test-ui.h"

typedef PdTestSessionList Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  pd_test_session_list_set_up (f, NULL);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  pd_test_session_list_tear_down (f);
}

/* The first item's row is drawn (mapped), not above the list's top. */
static void
assert_first_row_shown (Fixture   *f,
                        GtkWidget *view)
{
  GtkWidget *row = pd_test_session_list_find_row (f, pd_test_session_list_item_at (f, 0));
  graphene_rect_t bounds;

  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_mapped (row));
  g_assert_true (gtk_widget_compute_bounds (row, view, &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
}

/* A new session comes first while the list is at its top: it shows there.
 * It came above the rows in sight and the list did not move (tried as a
 * new user would). */
static void
test_session_list_new_on_top (Fixture       *f,
                              gconstpointer  data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_LIST_VIEW);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  g_autofree char *id = NULL;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Older work %u", i);
      g_autofree char *older = pd_test_add_session (f->store, title, "plandeck");
    }
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 33);
  g_assert_true (gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));

  id = pd_test_add_session (f->store, "Started just now", "plandeck");
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, id);
  pd_test_flush (GTK_WIDGET (f->window));
  pd_test_flush (GTK_WIDGET (f->window));
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
  assert_first_row_shown (f, view);
}

/* The first row of a list at its top is a pinned session's, the one open
 * below it: as other sessions change and move up under the pinned one, one
 * after another, and a new one comes, the list stays at its top with the
 * pinned row in sight.  The list moved only for a session that came first
 * (position 0); one that came second moved the open row down, GTK's list
 * went with it (the row has the focus), and the pinned row went out of
 * sight above, 51 px at the first change (tried as a new user would). */
static void
test_session_list_pinned_stays_on_top (Fixture       *f,
                                       gconstpointer  data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_LIST_VIEW);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  g_autoptr(GPtrArray) older = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Older work %u", i);

      g_ptr_array_add (older, pd_test_add_session (f->store, title, "plandeck"));
    }
  g_assert_true (pd_session_store_set_pinned (f->store, f->parser, TRUE, &error));
  g_assert_no_error (error);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 33);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->parser);
  g_assert_true (gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));

  /* The session second in the list opened, with the focus: it moves down
   * as the oldest sessions change one after another (each goes second,
   * under the pinned one), and a new one comes among them. */
  g_assert_true (pd_session_list_select (f->list, g_ptr_array_index (older, 29)));
  pd_test_flush (GTK_WIDGET (f->window));
  gtk_widget_grab_focus (view);
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (f->window)));
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (f->window)), view));
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (i + 1);
      g_autofree char *fresh = NULL;

      if (i == 4)
        fresh = pd_test_add_session (f->store, "Started just now", "plandeck");
      else
        pd_test_save_plan (f->store, g_ptr_array_index (older, i), plan, PD_SESSION_STATUS_IDLE);
      pd_session_list_refresh (f->list);
      pd_test_session_list_wait_listing (f);
      g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->parser);
      g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 1)), ==, fresh != NULL ? fresh : g_ptr_array_index (older, i));
      pd_test_flush (GTK_WIDGET (f->window));
      pd_test_flush (GTK_WIDGET (f->window));
      pd_test_flush (GTK_WIDGET (f->window));
      g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
    }
  assert_first_row_shown (f, view);
}

static gboolean
list_idle (gpointer data)
{
  Fixture *f = data;

  return !pd_session_list_get_busy (f->list);
}

/* The first item's row in sight: drawn, not above the list's top nor
 * below its end. */
static void
assert_first_row_in_sight (Fixture   *f,
                           GtkWidget *view)
{
  GtkWidget *row = pd_test_session_list_find_row (f, pd_test_session_list_item_at (f, 0));
  graphene_rect_t bounds;

  assert_first_row_shown (f, view);
  g_assert_true (gtk_widget_compute_bounds (row, view, &bounds));
  g_assert_cmpfloat (bounds.origin.y, <, gtk_widget_get_height (view));
}

/* A search that finds more sessions than a screen holds shows them from
 * the top, its first match in sight, typed in the search entry with the
 * list at its top and again with it scrolled down.  6 of 7 searches
 * opened scrolled to the end, the first matches out of sight (tried as a
 * new user would, with 30 copies of every agent's sessions). */
static void
test_session_list_search_from_top (Fixture       *f,
                                   gconstpointer  data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_LIST_VIEW);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_SEARCH_ENTRY);
  const char *queries[] = { "Upload rate", "Older", "Upload", "work" };

  for (guint i = 0; i < 240; i++)
    {
      g_autofree char *title = g_strdup_printf (i % 3 == 0 ? "Upload rate limits %u" : "Older work %u", i);
      g_autofree char *id = pd_test_add_session (f->store, title, i % 2 ? "claude-code" : "codex");
    }
  pd_session_list_refresh (f->list);
  pd_test_wait_until (list_idle, f, "the whole listing");
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 243);

  pd_session_list_start_search (f->list);
  pd_test_flush (GTK_WIDGET (f->window));
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      /* The second time on, from a list scrolled half-way down. */
      if (q > 0)
        {
          gtk_adjustment_set_value (adjustment, (gtk_adjustment_get_upper (adjustment) -
                                                 gtk_adjustment_get_page_size (adjustment)) / 2);
          pd_test_flush (GTK_WIDGET (f->window));
        }
      gtk_widget_grab_focus (entry);
      gtk_editable_set_text (GTK_EDITABLE (entry), queries[q]);
      pd_session_list_set_query (f->list, queries[q], FALSE);
      pd_test_wait_until (list_idle, f, "the search's listing");
      for (guint i = 0; i < 4; i++)
        pd_test_flush (GTK_WIDGET (f->window));
      g_assert_cmpuint (pd_test_session_list_n_items (f), >, 60);
      g_assert_true (gtk_adjustment_get_upper (adjustment) > 2 * gtk_adjustment_get_page_size (adjustment));
      g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
      assert_first_row_in_sight (f, view);
      g_assert_true (gtk_widget_has_focus (entry) || gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (f->window)), entry));
    }
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

#define ADD(path, func) \
  g_test_add ("/pd/ui/session-list/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("new-on-top", test_session_list_new_on_top);
  ADD ("pinned-stays-on-top", test_session_list_pinned_stays_on_top);
  ADD ("search-from-top", test_session_list_search_from_top);

#undef ADD

  return g_test_run ();
}
