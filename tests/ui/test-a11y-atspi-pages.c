/* test-a11y-atspi-pages.c: hidden pages and toasts, over AT-SPI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs as test-a11y-atspi.c does, with GTK's AT-SPI backend on a real
 * accessibility bus (with-atspi.sh).  GTK 4.8 gives every object it
 * presents the state "visible" and none but a window "showing", so a
 * reader walking the window met the three session pages not shown as if
 * they were (nu22 #3: SHOWING on 1 of 663 objects, VISIBLE on all): only
 * the page shown may be met.  A toast sent nothing a reader hears (issue
 * 23): its words must come as an event.  Calls to the app's own objects
 * are made without blocking, as the app answers them from this same main
 * loop.
 */
#define G_LOG_DOMAIN "test-a11y-atspi-pages"

#include "config.h"

#include <string.h>

#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-test-atspi.h"
#include "pd-ui-util-private.h"


/* Adds the name of each object below @path to @names, as a reader's walk
 * meets them (GetChildren: GTK 4.8 leaves out what it does not present). */
static void
walk (GDBusConnection *bus,
      const char      *name,
      const char      *path,
      GHashTable      *names,
      guint           *n_read)
{
  g_autoptr(GVariant) children = call (bus, name, path, ATSPI_ACCESSIBLE, "GetChildren", NULL,
                                       G_VARIANT_TYPE ("(a(so))"));
  g_autoptr(GVariantIter) iter = NULL;
  const char *child_name, *child_path;

  (*n_read)++;
  g_hash_table_add (names, atspi_name (bus, name, path));
  g_variant_get (children, "(a(so))", &iter);
  while (g_variant_iter_next (iter, "(&s&o)", &child_name, &child_path))
    walk (bus, child_name, child_path, names, n_read);
}

/* The names met walking the window titled @title; how many objects in
 * @n_read. */
static GHashTable *
walk_window (GDBusConnection *bus,
             const char      *title,
             guint           *n_read)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GVariant) apps = call (bus, "org.a11y.atspi.Registry", ATSPI_ROOT, ATSPI_ACCESSIBLE,
                                   "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_autoptr(GVariantIter) app_iter = NULL;
  const char *app_name, *app_path;

  *n_read = 0;
  g_variant_get (apps, "(a(so))", &app_iter);
  while (g_variant_iter_next (app_iter, "(&s&o)", &app_name, &app_path))
    {
      g_autoptr(GVariant) children = call (bus, app_name, app_path, ATSPI_ACCESSIBLE, "GetChildren",
                                           NULL, G_VARIANT_TYPE ("(a(so))"));
      g_autoptr(GVariantIter) iter = NULL;
      const char *name, *path;

      g_variant_get (children, "(a(so))", &iter);
      while (g_variant_iter_next (iter, "(&s&o)", &name, &path))
        {
          g_autofree char *window_name = atspi_name (bus, name, path);

          if (g_strcmp0 (window_name, title) == 0)
            walk (bus, name, path, names, n_read);
        }
    }
  g_assert_cmpuint (*n_read, >, 0);
  return names;
}

/* --- the session's pages -------------------------------------------------- */

/* Names only a page's own objects have. */
static const struct
{
  const char *page;
  const char *marker;
} markers[] = {
  { "events", "Event type" },   /* its filter, above its list or "No Events Yet" */
  { "history", "Plan versions and changes" },
};

static void
check_pages (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  /* Each page once (a page is built when first shown), then Now again. */
  static const char * const pages[] = { "now", "transcript", "events", "history", "now" };
  AdwViewStack *views;
  guint wrong = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  views = pd_test_a11y_view_stack (window);
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autoptr(GHashTable) names = NULL;
      guint n_read;

      adw_view_stack_set_visible_child_name (views, pages[i]);
      for (guint k = 0; k < 5; k++)
        pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      names = walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), &n_read);
      g_test_message ("the %s page shown: %u objects met over AT-SPI", pages[i], n_read);
      for (guint j = 0; j < G_N_ELEMENTS (markers); j++)
        {
          gboolean met = g_hash_table_contains (names, markers[j].marker);
          gboolean shown = g_str_equal (markers[j].page, pages[i]);

          if (met != shown)
            {
              g_test_message ("the %s page shown: “%s” (the %s page's) %s", pages[i], markers[j].marker,
                              markers[j].page, met ? "met, though not shown" : "not met, though shown");
              wrong++;
            }
        }
    }
  g_assert_cmpuint (wrong, ==, 0);
}

static void
test_pages (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_pages, NULL), ==, 0);
}

/* --- a toast's words --------------------------------------------------------- */

typedef struct
{
  const char *words;
  guint       heard;
} Heard;

/* Any AT-SPI object event (a name changed, a child added, text inserted)
 * that carries the words. */
static void
on_event (GDBusConnection *connection,
          const char      *sender,
          const char      *path,
          const char      *interface,
          const char      *signal,
          GVariant        *parameters,
          gpointer         user_data)
{
  Heard *heard = user_data;
  g_autofree char *printed = g_variant_print (parameters, FALSE);

  if (strstr (printed, heard->words) != NULL)
    {
      g_test_message ("heard %s.%s on %s: %.160s", interface, signal, path, printed);
      heard->heard++;
    }
}

static gboolean
was_heard (gpointer data)
{
  return ((Heard *) data)->heard > 0;
}

static void
check_toast (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  g_autoptr(GHashTable) names = NULL;
  Heard heard = { "Nothing to export in this session", 0 };
  guint id, n_read;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  /* A reader has read the window, as one does when it comes. */
  names = walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), &n_read);
  id = g_dbus_connection_signal_subscribe (bus, NULL, "org.a11y.atspi.Event.Object", NULL, NULL, NULL,
                                           G_DBUS_SIGNAL_FLAGS_NONE, on_event, &heard, NULL);
  pd_test_spin (200);
  _pd_toast_add_text (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_TOAST_OVERLAY), heard.words);
  pd_test_wait_until (was_heard, &heard, "the toast's words over AT-SPI");
  g_dbus_connection_signal_unsubscribe (bus, id);
}

static void
test_toast (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_toast, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/ui/a11y/atspi/hidden-pages", test_pages);
  g_test_add_func ("/pd/ui/a11y/atspi/toast-heard", test_toast);
  return g_test_run ();
}
