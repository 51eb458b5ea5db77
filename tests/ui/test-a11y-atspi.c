/* test-a11y-atspi.c: the windows as a screen reader reads them, over AT-SPI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK's AT-SPI backend on a real accessibility bus
 * (with-atspi.sh), not GTK_A11Y=test: what it checks, the role a toplevel
 * is given, the test backend never showed. The windows' own accessibility
 * objects are read over D-Bus as a screen reader does: the registry's
 * applications, each application's windows, their Name and role: the
 * first window, then each second window (the demo's, another database's,
 * every dialog that can be opened without a run). Calls to
 * the app's own objects are made without blocking, as the app answers
 * them from this same main loop.
 */
#define G_LOG_DOMAIN "test-a11y-atspi"

#include "config.h"

#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-removed-sessions.h"
#include "pd-test-a11y.h"
#include "pd-test-atspi.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"


/* AT-SPI's roles (AtspiRole), as a screen reader names them. */
static const char *
role_name (guint32 role)
{
  switch (role)
    {
    case 2:
      return "alert";
    case 16:
      return "dialog";
    case 20:
      return "filler";
    case 23:
      return "frame";
    case 27:
      return "image";
    case 29:
      return "label";
    case 39:
      return "panel";
    case 43:
      return "push button";
    case 49:
      return "scroll pane";
    case 62:
      return "toggle button";
    case 69:
      return "window";
    default:
      return "other";
    }
}

typedef struct
{
  char    *key;   /* "bus path": the same object while it lives */
  guint32  role;
  char    *name;
} AtspiWindow;

static void
atspi_window_free (gpointer data)
{
  AtspiWindow *window = data;

  g_free (window->key);
  g_free (window->name);
  g_free (window);
}

/* Each window shown of each application on the bus, as a screen reader
 * lists them. */
static GPtrArray *
read_atspi_windows (GDBusConnection *bus)
{
  GPtrArray *windows = g_ptr_array_new_with_free_func (atspi_window_free);
  g_autoptr(GVariant) apps = call (bus, "org.a11y.atspi.Registry", ATSPI_ROOT, ATSPI_ACCESSIBLE,
                                   "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_autoptr(GVariantIter) app_iter = NULL;
  const char *app_name, *app_path;

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
          g_autoptr(GVariant) role = call (bus, name, path, ATSPI_ACCESSIBLE, "GetRole", NULL,
                                           G_VARIANT_TYPE ("(u)"));
          g_autoptr(GVariant) title = call (bus, name, path, "org.freedesktop.DBus.Properties", "Get",
                                            g_variant_new ("(ss)", ATSPI_ACCESSIBLE, "Name"),
                                            G_VARIANT_TYPE ("(v)"));
          g_autoptr(GVariant) title_value = NULL;
          AtspiWindow *window = g_new0 (AtspiWindow, 1);

          g_variant_get (role, "(u)", &window->role);
          g_variant_get (title, "(v)", &title_value);
          window->key = g_strdup_printf ("%s %s", name, path);
          window->name = g_variant_dup_string (title_value, NULL);
          g_ptr_array_add (windows, window);
        }
    }
  return windows;
}

/* "role title" of each window shown of each application on the bus. */
static GPtrArray *
read_windows (GDBusConnection *bus)
{
  g_autoptr(GPtrArray) windows = read_atspi_windows (bus);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < windows->len; i++)
    {
      AtspiWindow *window = g_ptr_array_index (windows, i);

      g_ptr_array_add (out, g_strdup_printf ("%s %s", role_name (window->role), window->name));
    }
  return out;
}

/* The window called @title is there with @role over AT-SPI. */
static void
assert_window_role (GDBusConnection *bus,
                    const char      *title,
                    const char      *role)
{
  g_autoptr(GPtrArray) windows = read_windows (bus);
  g_autofree char *wanted = g_strdup_printf ("%s %s", role, title);
  gboolean found = FALSE;

  for (guint i = 0; i < windows->len; i++)
    {
      g_test_message ("over AT-SPI: [%s]", (char *) g_ptr_array_index (windows, i));
      if (g_str_equal (g_ptr_array_index (windows, i), wanted))
        found = TRUE;
    }
  if (!found)
    g_error ("no window “%s” with the role %s among the %u read over AT-SPI", title, role, windows->len);
}

static GtkWindow *
open_dialog (PdWindow   *window,
             const char *action,
             GType       type,
             const char *what)
{
  GtkWindow *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (type), what);
  dialog = pd_test_mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

/* New Session is a dialog, the window and Preferences frames, each named
 * by its title. */
static void
check_window_roles (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  assert_window_role (bus, gtk_window_get_title (GTK_WINDOW (window)), "frame");

  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  assert_window_role (bus, "New Session", "dialog");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  assert_window_role (bus, "Preferences", "frame");
  gtk_window_destroy (dialog);
}

/* --- every second window ----------------------------------------------------- */

typedef struct
{
  GDBusConnection *bus;
  GHashTable      *before;   /* keys of the windows shown before */
  GPtrArray       *wrong;    /* what a reader met badly */
} SecondWindows;

/* A name that says nothing: none, or a class ("GtkWindow", "AdwMessageDialog"). */
static gboolean
says_nothing (const char *name)
{
  return name == NULL || *name == '\0' ||
         ((g_str_has_prefix (name, "Gtk") || g_str_has_prefix (name, "Adw")) && g_ascii_isupper (name[3])) ||
         (g_str_has_prefix (name, "Pd") && g_ascii_isupper (name[2]));
}

static void
remember_windows (SecondWindows *check)
{
  g_autoptr(GPtrArray) windows = read_atspi_windows (check->bus);

  g_hash_table_remove_all (check->before);
  for (guint i = 0; i < windows->len; i++)
    g_hash_table_add (check->before, g_strdup (((AtspiWindow *) g_ptr_array_index (windows, i))->key));
}

/* The windows that came since remember_windows(), @what once shown: each
 * a frame, a dialog or an alert, named by more than its class. */
static void
check_new_windows (SecondWindows *check,
                   const char    *what)
{
  g_autoptr(GPtrArray) windows = read_atspi_windows (check->bus);
  guint n_new = 0;

  for (guint i = 0; i < windows->len; i++)
    {
      AtspiWindow *window = g_ptr_array_index (windows, i);
      const char *role = role_name (window->role);

      if (g_hash_table_contains (check->before, window->key))
        continue;
      n_new++;
      g_test_message ("%s, over AT-SPI: [%s] “%s”", what, role, window->name);
      if (!g_str_equal (role, "frame") && !g_str_equal (role, "dialog") && !g_str_equal (role, "alert"))
        g_ptr_array_add (check->wrong, g_strdup_printf ("%s: a window with the role %s (“%s”)", what, role,
                                                        window->name));
      if (says_nothing (window->name))
        g_ptr_array_add (check->wrong, g_strdup_printf ("%s: a %s named “%s”", what, role, window->name));
    }
  if (n_new == 0)
    g_ptr_array_add (check->wrong, g_strdup_printf ("%s: no new window over AT-SPI", what));
}

typedef struct
{
  GType type;
  guint n;
} Mapped;

static gboolean
n_mapped (gpointer data)
{
  Mapped *mapped = data;
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, mapped->type) && gtk_widget_get_mapped (window))
        n++;
    }
  return n >= mapped->n;
}

/* The shown window of @type that is not @other. */
static GtkWindow *
mapped_other (GType      type,
              GtkWindow *other)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (window != other && G_TYPE_CHECK_INSTANCE_TYPE (window, type) &&
          gtk_widget_get_mapped (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

/* Opens a window with @action of @window (or of the application for
 * "app."), checks it over AT-SPI and closes it. */
static void
check_opened (SecondWindows *check,
              PdWindow      *window,
              const char    *action,
              GVariant      *parameter,
              GType          type,
              const char    *what)
{
  Mapped mapped = { type, type == PD_TYPE_WINDOW ? 2 : 1 };
  GtkWindow *opened;

  remember_windows (check);
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), action, parameter));
  pd_test_wait_until (n_mapped, &mapped, what);
  opened = mapped_other (type, GTK_WINDOW (window));
  pd_test_flush (GTK_WIDGET (opened));
  check_new_windows (check, what);
  gtk_window_destroy (opened);
}

static void
check_second_windows (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  g_autoptr(GHashTable) before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) wrong = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *empty = g_build_filename (dir, "empty.db", NULL);
  SecondWindows check = { bus, before, wrong };

  g_object_unref (pd_test_open_store (empty));
  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  check_opened (&check, window, "app.open-demo", NULL, PD_TYPE_WINDOW, "the demo's window");
  check_opened (&check, window, "app.open-database", g_variant_new_string (empty), PD_TYPE_WINDOW,
                "a second window (an empty database)");
  check_opened (&check, window, "win.preferences", NULL, PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  check_opened (&check, window, "win.new-session", NULL, PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  check_opened (&check, window, "win.show-help-overlay", NULL, GTK_TYPE_SHORTCUTS_WINDOW, "Keyboard Shortcuts");
  check_opened (&check, window, "app.about", NULL, ADW_TYPE_ABOUT_WINDOW, "About");
  check_opened (&check, window, "win.show-removed-sessions", NULL, PD_TYPE_REMOVED_SESSIONS, "Removed Sessions");
  check_opened (&check, window, "win.connect-endpoint", NULL, ADW_TYPE_MESSAGE_DIALOG, "Connect to Endpoint");
  /* Not the file choosers: GTK's own dialog, in place of the portal's
   * where there is none (as here), is a "filler" from its own init on,
   * past any reach of ours. */

  for (guint i = 0; i < wrong->len; i++)
    g_test_message ("wrong: %s", (char *) g_ptr_array_index (wrong, i));
  if (wrong->len > 0)
    g_error ("%u second windows a screen reader cannot tell apart (first: %s)", wrong->len,
             (char *) g_ptr_array_index (wrong, 0));
}

static void
test_second_windows (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_second_windows, NULL), ==, 0);
}

static void
test_window_roles (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_window_roles, NULL), ==, 0);
}

/* --- every object of every page and dialog ----------------------------------- */

/* The window's pages (Now, Transcript, Events, History, the Overview),
 * Preferences and New Session walked object by object over AT-SPI, as a
 * reader's review keys or Accerciser do: no control, image or scroll bar
 * says nothing or its class.  120 scroll bars were "GtkScrollbar", those
 * of pages not shown and overlay ones too (tried with a screen reader). */

/* AT-SPI's roles of controls and of what a reader browses to: push button,
 * toggle button, check box, radio button, combo box, entry, password
 * text, spin button, slider, scroll bar, menu item, page tab, image, link,
 * text.  Labels are left to a11y-browse (GTK_A11Y=test): over AT-SPI an
 * empty label of each session row, not drawn, is still "GtkLabel" (left
 * for a later change). */
static gboolean
role_is_checked (guint32 role)
{
  switch (role)
    {
    case 7: case 11: case 27: case 34: case 37: case 40: case 43: case 44: case 45:
    case 48: case 51: case 52: case 61: case 62: case 79: case 88:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Whether a reader meets the object: AT-SPI's state "visible" (30), which
 * GTK 4.8 gives all but a hidden object, drawn or not ("showing", 25, only
 * the window has). */
static gboolean
atspi_visible (GDBusConnection *bus,
               const char      *name,
               const char      *path)
{
  g_autoptr(GVariant) reply = call (bus, name, path, ATSPI_ACCESSIBLE, "GetState", NULL, G_VARIANT_TYPE ("(au)"));
  g_autoptr(GVariantIter) iter = NULL;
  guint32 word, i = 0;
  gboolean visible = FALSE;

  g_variant_get (reply, "(au)", &iter);
  while (g_variant_iter_next (iter, "u", &word))
    {
      if (i == 0 && (word & (1u << 30)) != 0)
        visible = TRUE;
      i++;
    }
  return visible;
}

/* Walks the object @path of @name and what it holds, adding to @wrong
 * each object a reader meets (not hidden), of a role checked, that says
 * nothing or its class. */
static void
walk (GDBusConnection *bus,
      const char      *name,
      const char      *path,
      const char      *where,
      const char      *trail,
      guint           *n_read,
      GPtrArray       *wrong)
{
  g_autoptr(GVariant) role_reply = call (bus, name, path, ATSPI_ACCESSIBLE, "GetRole", NULL, G_VARIANT_TYPE ("(u)"));
  g_autoptr(GVariant) role_name_reply = call (bus, name, path, ATSPI_ACCESSIBLE, "GetRoleName", NULL,
                                              G_VARIANT_TYPE ("(s)"));
  g_autoptr(GVariant) children = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  g_autofree char *said = NULL;
  g_autofree char *here = NULL;
  const char *child_name, *child_path, *role_text;
  guint32 role;

  if (!atspi_visible (bus, name, path))
    return;
  g_variant_get (role_reply, "(u)", &role);
  g_variant_get (role_name_reply, "(&s)", &role_text);
  said = atspi_name (bus, name, path);
  (*n_read)++;
  here = g_strdup_printf ("%s/%s", trail, role_text);
  if (role_is_checked (role) && says_nothing (said))
    g_ptr_array_add (wrong, g_strdup_printf ("%s: a %s named “%s” (%s)", where, role_text, said, here));
  else if (said[0] != '\0' && says_nothing (said))
    g_ptr_array_add (wrong, g_strdup_printf ("%s: a %s named by its class “%s” (%s)", where, role_text, said, here));
  children = call (bus, name, path, ATSPI_ACCESSIBLE, "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_variant_get (children, "(a(so))", &iter);
  while (g_variant_iter_next (iter, "(&s&o)", &child_name, &child_path))
    walk (bus, child_name, child_path, where, here, n_read, wrong);
}

/* Every object of the window titled @title, walked. */
static void
walk_window (GDBusConnection *bus,
             const char      *title,
             const char      *where,
             GPtrArray       *wrong)
{
  g_autoptr(GPtrArray) windows = read_atspi_windows (bus);
  guint n_read = 0;

  for (guint i = 0; i < windows->len; i++)
    {
      AtspiWindow *window = g_ptr_array_index (windows, i);
      g_auto(GStrv) key = NULL;

      if (g_strcmp0 (window->name, title) != 0)
        continue;
      key = g_strsplit (window->key, " ", 2);
      walk (bus, key[0], key[1], where, "", &n_read, wrong);
    }
  g_test_message ("%s: %u objects read over AT-SPI", where, n_read);
  g_assert_cmpuint (n_read, >, 0);
}

/* --- a screen reader's cache ------------------------------------------------- */

/* AT-SPI's "panel" (39): what GTK 4.8 makes a stack's page, a tab panel;
 * its "scroll pane" (49): a scrolled window, which a reader says as the
 * focus enters it. */
#define ATSPI_ROLE_PANEL 39
#define ATSPI_ROLE_SCROLL_PANE 49

/* Every object the application has handed to AT-SPI, as a screen reader's
 * cache reads it (org.a11y.atspi.Cache.GetItems, what libatspi and Orca
 * read): objects the GetChildren walk never meets are there too, a stack's
 * pages (a GtkStackPage is the parent of its page's widget, not a child of
 * its stack, tried with a screen reader: 55 "GtkStackPage" in the window,
 * 30 in Preferences).  Adds to @wrong each one shown (state "visible")
 * that is named by its class, or unnamed with a role that needs a name (a
 * control's, a stack page's).  Returns how many objects were read. */
static guint
check_cache (GDBusConnection *bus,
             const char      *where,
             GPtrArray       *wrong)
{
  g_autoptr(GVariant) apps = call (bus, "org.a11y.atspi.Registry", ATSPI_ROOT, ATSPI_ACCESSIBLE,
                                   "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_autoptr(GVariantIter) app_iter = NULL;
  const char *app_name, *app_path;
  guint n_read = 0, n_pages = 0;

  g_variant_get (apps, "(a(so))", &app_iter);
  while (g_variant_iter_next (app_iter, "(&s&o)", &app_name, &app_path))
    {
      g_autoptr(GVariant) reply = call (bus, app_name, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems",
                                        NULL, NULL);
      g_autoptr(GVariant) items = g_variant_get_child_value (reply, 0);
      /* path → "role “name”", to say where a wrong one sits */
      g_autoptr(GHashTable) said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

      for (gsize i = 0; i < g_variant_n_children (items); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (items, i);
          const char *path, *name;
          guint32 role;

          /* ((so) (so) (so) i i as s u s au): the object, its application,
           * its parent, its index there, its children, its interfaces, its
           * name, role and description, its states. */
          g_variant_get_child (item, 0, "(&s&o)", NULL, &path);
          g_variant_get_child (item, 6, "&s", &name);
          g_variant_get_child (item, 7, "u", &role);
          g_hash_table_insert (said, g_strdup (path), g_strdup_printf ("%s “%s”", role_name (role), name));
        }
      for (gsize i = 0; i < g_variant_n_children (items); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (items, i);
          g_autoptr(GVariant) states = NULL;
          g_autofree char *place = NULL;
          const char *path, *parent, *name, *description;
          guint32 role, first_states = 0;

          g_variant_get_child (item, 0, "(&s&o)", NULL, &path);
          g_variant_get_child (item, 2, "(&s&o)", NULL, &parent);
          g_variant_get_child (item, 6, "&s", &name);
          g_variant_get_child (item, 7, "u", &role);
          g_variant_get_child (item, 8, "&s", &description);
          states = g_variant_get_child_value (item, 9);
          if (g_variant_n_children (states) > 0)
            g_variant_get_child (states, 0, "u", &first_states);
          n_read++;
          if (role == ATSPI_ROLE_PANEL)
            n_pages++;
          if ((first_states & (1u << 30)) == 0)
            continue;  /* hidden: a reader does not meet it */
          place = g_strdup_printf ("in %s", g_hash_table_contains (said, parent)
                                            ? (char *) g_hash_table_lookup (said, parent) : "nothing");
          if (name[0] != '\0' && says_nothing (name))
            g_ptr_array_add (wrong, g_strdup_printf ("%s, in the cache: a %s named by its class “%s” (%s)", where,
                                                     role_name (role), name, place));
          else if (name[0] == '\0' && (role_is_checked (role) || role == ATSPI_ROLE_SCROLL_PANE))
            g_ptr_array_add (wrong, g_strdup_printf ("%s, in the cache: an unnamed %s (%s)", where,
                                                     role_name (role), place));
          if (description[0] != '\0' && says_nothing (description))
            g_ptr_array_add (wrong, g_strdup_printf ("%s, in the cache: a %s described by a class “%s” (%s)", where,
                                                     role_name (role), description, place));
        }
    }
  g_test_message ("%s: %u objects in the cache, %u panels", where, n_read, n_pages);
  return n_read;
}

/* --- the field the focus is in ----------------------------------------------- */

/* The name and role of the object AT-SPI says is focused (state 12) under
 * @path, or FALSE. */
static gboolean
find_focused (GDBusConnection  *bus,
              const char       *name,
              const char       *path,
              char            **said,
              char            **role)
{
  g_autoptr(GVariant) state = call (bus, name, path, ATSPI_ACCESSIBLE, "GetState", NULL, G_VARIANT_TYPE ("(au)"));
  g_autoptr(GVariantIter) words = NULL;
  g_autoptr(GVariant) children = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  const char *child_name, *child_path;
  guint32 word, first = 0;
  guint i = 0;

  g_variant_get (state, "(au)", &words);
  while (g_variant_iter_next (words, "u", &word))
    if (i++ == 0)
      first = word;
  if ((first & (1u << 12)) != 0)
    {
      g_autoptr(GVariant) role_reply = call (bus, name, path, ATSPI_ACCESSIBLE, "GetRoleName", NULL,
                                             G_VARIANT_TYPE ("(s)"));

      g_variant_get (role_reply, "(s)", role);
      *said = atspi_name (bus, name, path);
      return TRUE;
    }
  children = call (bus, name, path, ATSPI_ACCESSIBLE, "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_variant_get (children, "(a(so))", &iter);
  while (g_variant_iter_next (iter, "(&s&o)", &child_name, &child_path))
    if (find_focused (bus, child_name, child_path, said, role))
      return TRUE;
  return FALSE;
}

static void
expand_all (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_EXPANDER_ROW (child))
        adw_expander_row_set_expanded (ADW_EXPANDER_ROW (child), TRUE);
      expand_all (child);
    }
}

/* Each text field shown in @dialog (titled @title) focused in turn, as
 * Tab does, and the object a screen reader is told is focused read over
 * AT-SPI: a key's or token's field said "text box" and no name (issue
 * 23). Returns how many fields were focused. */
static guint
check_focused_fields (GDBusConnection *bus,
                      GtkWindow       *dialog,
                      const char      *title,
                      GPtrArray       *wrong)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();
  g_autoptr(GPtrArray) windows = NULL;
  guint n_focused = 0;

  pd_test_collect (GTK_WIDGET (dialog), GTK_TYPE_TEXT, texts);
  for (guint i = 0; i < texts->len; i++)
    {
      GtkWidget *text = g_ptr_array_index (texts, i);
      g_autofree char *said = NULL;
      g_autofree char *role = NULL;

      if (!gtk_widget_get_mapped (text) || !gtk_editable_get_editable (GTK_EDITABLE (text)) ||
          gtk_widget_get_ancestor (text, GTK_TYPE_SEARCH_ENTRY) != NULL || !gtk_widget_grab_focus (text))
        continue;
      for (guint k = 0; k < 3; k++)
        pd_test_flush (GTK_WIDGET (dialog));
      windows = read_atspi_windows (bus);
      for (guint j = 0; j < windows->len && said == NULL; j++)
        {
          AtspiWindow *window = g_ptr_array_index (windows, j);
          g_auto(GStrv) key = g_strsplit (window->key, " ", 2);

          if (g_strcmp0 (window->name, title) == 0)
            find_focused (bus, key[0], key[1], &said, &role);
        }
      g_clear_pointer (&windows, g_ptr_array_unref);
      g_test_message ("%s: a field focused, AT-SPI says %s “%s”", title, role ? role : "nothing", said ? said : "");
      n_focused++;
      if (said == NULL || says_nothing (said))
        g_ptr_array_add (wrong, g_strdup_printf ("%s: the focused field is a %s named “%s”", title,
                                                 role ? role : "nothing", said ? said : ""));
    }
  return n_focused;
}

static void
check_walk (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  g_autoptr(GPtrArray) wrong = g_ptr_array_new_with_free_func (g_free);
  static const char * const pages[] = { "now", "transcript", "events", "history" };
  AdwViewStack *views;
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  /* A tooltip shown under the pointer is a child of the window over
   * AT-SPI: it was "GtkTooltipWindow" (met once in a walk). */
  g_assert_cmpuint (g_type_from_name ("GtkTooltipWindow"), !=, 0);
  g_assert_cmpint (gtk_widget_class_get_accessible_role (g_type_class_peek (g_type_from_name ("GtkTooltipWindow"))), ==,
                   GTK_ACCESSIBLE_ROLE_GENERIC);
  views = pd_test_a11y_view_stack (window);
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *where = g_strdup_printf ("the window, %s", pages[i]);

      adw_view_stack_set_visible_child_name (views, pages[i]);
      for (guint k = 0; k < 5; k++)
        pd_test_flush (GTK_WIDGET (window));
      walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), where, wrong);
    }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  for (guint k = 0; k < 5; k++)
    pd_test_flush (GTK_WIDGET (window));
  walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), "the window, Overview", wrong);
  g_assert_cmpuint (check_cache (bus, "the window", wrong), >, 0);

  dialog = open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  walk_window (bus, "Preferences", "Preferences", wrong);
  /* Every page, its profiles open: the keys', the endpoints' fields. */
  {
    GtkWidget *stack = pd_test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_VIEW_STACK);
    g_autoptr(GtkSelectionModel) model = adw_view_stack_get_pages (ADW_VIEW_STACK (stack));
    guint n_fields = 0;

    for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
      {
        g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (model), i);
        GtkWidget *child = adw_view_stack_page_get_child (page);

        if (!ADW_IS_PREFERENCES_PAGE (child))
          continue;
        adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (dialog), ADW_PREFERENCES_PAGE (child));
        expand_all (child);
        pd_test_flush (GTK_WIDGET (dialog));
        pd_test_spin (500);
        pd_test_flush (GTK_WIDGET (dialog));
        n_fields += check_focused_fields (bus, dialog, "Preferences", wrong);
      }
    g_assert_cmpuint (n_fields, >=, 12);
  }
  check_cache (bus, "Preferences", wrong);
  gtk_window_destroy (dialog);
  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  walk_window (bus, "New Session", "New Session", wrong);
  check_focused_fields (bus, dialog, "New Session", wrong);
  check_cache (bus, "New Session", wrong);
  gtk_window_destroy (dialog);

  for (guint i = 0; i < wrong->len; i++)
    g_test_message ("unnamed: %s", (char *) g_ptr_array_index (wrong, i));
  if (wrong->len > 0)
    g_error ("%u objects a screen reader meets say nothing or their class (first: %s)", wrong->len,
             (char *) g_ptr_array_index (wrong, 0));
}

static void
test_walk (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_walk, NULL), ==, 0);
}

/* --- what a reader meets beside the pages ------------------------------------ */

static gboolean
is_toast_undo (GtkWidget     *widget,
               gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Undo") == 0;
}

static gboolean
toast_shown (gpointer window)
{
  return pd_test_find_first (window, is_toast_undo, NULL) != NULL;
}

static gboolean
is_menu_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_MENU_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         GTK_IS_POPOVER_MENU (gtk_menu_button_get_popover (GTK_MENU_BUTTON (widget)));
}

static gboolean
popover_mapped (gpointer popover)
{
  return gtk_widget_get_mapped (popover);
}

/* A toast with Undo, the main menu open and the shortcuts window, walked
 * and then read from the cache as a screen reader reads them: a toast's
 * parts, a menu's pages, the shortcuts window's key caps and header (issue
 * 23: each was said by its class or unnamed). */
static void
check_more (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  g_autoptr(GPtrArray) wrong = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *overlay, *menu_button, *popover;
  AdwToast *toast;
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  overlay = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_TOAST_OVERLAY);
  toast = adw_toast_new ("Session “Flaky scroll test” removed from the list");
  adw_toast_set_button_label (toast, "_Undo");
  adw_toast_set_timeout (toast, 0);
  _pd_toast_add (overlay, toast);
  pd_test_wait_until (toast_shown, window, "the toast");
  for (guint k = 0; k < 5; k++)
    pd_test_flush (GTK_WIDGET (window));
  walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), "the window with a toast", wrong);
  check_cache (bus, "the window with a toast", wrong);

  menu_button = pd_test_find_first (GTK_WIDGET (window), is_menu_button, NULL);
  g_assert_nonnull (menu_button);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)));
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  pd_test_wait_until (popover_mapped, popover, "the main menu");
  for (guint k = 0; k < 5; k++)
    pd_test_flush (GTK_WIDGET (window));
  walk_window (bus, gtk_window_get_title (GTK_WINDOW (window)), "the main menu", wrong);
  check_cache (bus, "the main menu", wrong);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (menu_button));

  dialog = open_dialog (window, "win.show-help-overlay", GTK_TYPE_SHORTCUTS_WINDOW, "Keyboard Shortcuts");
  walk_window (bus, "Keyboard Shortcuts", "the shortcuts window", wrong);
  check_cache (bus, "the shortcuts window", wrong);
  gtk_window_destroy (dialog);

  for (guint i = 0; i < wrong->len; i++)
    g_test_message ("unnamed: %s", (char *) g_ptr_array_index (wrong, i));
  if (wrong->len > 0)
    g_error ("%u objects a screen reader meets say nothing or their class (first: %s)", wrong->len,
             (char *) g_ptr_array_index (wrong, 0));
}

static void
test_more (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_more, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  /* The demo's run without its pauses. */
  g_setenv ("PLANDECK_DEMO_SPEED", "0", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/atspi/window-roles", test_window_roles);
  g_test_add_func ("/pd/ui/a11y/atspi/second-windows", test_second_windows);
  g_test_add_func ("/pd/ui/a11y/atspi/walk", test_walk);
  g_test_add_func ("/pd/ui/a11y/atspi/toast-menu-shortcuts", test_more);

  return g_test_run ();
}
