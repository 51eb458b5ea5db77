/* pd-ui-a11y-internals.c: GTK's and libadwaita's own parts a screen reader meets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Read over AT-SPI's cache as a screen reader reads it (issue 23), parts
 * GTK 4.8 and libadwaita 1.2 build themselves were said by their class:
 * each key cap of the shortcuts window ("GtkShortcutLabel"), its section
 * button ("GtkMenuButton"), a toast's box and its title's holder
 * ("AdwToastWidget", "AdwBin").  They are named, or made generic
 * containers (GTK 4.8 leaves those unnamed and keeps what they hold).
 */
#define G_LOG_DOMAIN "pd-ui-a11y-internals"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"

/* Key caps GTK 4.8 draws as a sign, in words. */
static const char *
key_in_words (const char *text)
{
  static const struct { const char *sign; const char *words; } keys[] = {
    { "⏎", NC_("keyboard label", "Enter") },
    { "←", NC_("keyboard label", "Left Arrow") },
    { "→", NC_("keyboard label", "Right Arrow") },
    { "↑", NC_("keyboard label", "Up Arrow") },
    { "↓", NC_("keyboard label", "Down Arrow") },
    { "⌫", NC_("keyboard label", "Backspace") },
    { "↹", NC_("keyboard label", "Tab") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (g_str_equal (text, keys[i].sign))
      return g_dpgettext2 (GETTEXT_PACKAGE, "keyboard label", keys[i].words);
  return text;
}

/* Key caps GTK 4.8 draws as one small mark, shown in words on the cap:
 * Preferences' "," read as "Ctrl + ." (tried as a new user would, nu18 #9,
 * nu19 #9). */
static const char *
mark_in_words (const char *text)
{
  static const struct { const char *mark; const char *words; } marks[] = {
    { ",", NC_("keyboard label", "Comma") },
    { ".", NC_("keyboard label", "Period") },
    { ";", NC_("keyboard label", "Semicolon") },
    { ":", NC_("keyboard label", "Colon") },
    { "'", NC_("keyboard label", "Apostrophe") },
    { "`", NC_("keyboard label", "Grave") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    if (g_str_equal (text, marks[i].mark))
      return g_dpgettext2 (GETTEXT_PACKAGE, "keyboard label", marks[i].words);
  return NULL;
}

/* A key cap is named by its keys in words, as shown: "Ctrl+Enter",
 * "Menu or Shift+F10". */
static void
shortcut_label_sync (GtkWidget *shortcut)
{
  GString *words = g_string_new (NULL);

  /* Its labels are made anew on each change of its keys. */
  for (GtkWidget *child = gtk_widget_get_first_child (shortcut); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LABEL (child) && gtk_widget_has_css_class (child, "keycap") &&
        mark_in_words (gtk_label_get_text (GTK_LABEL (child))) != NULL)
      gtk_label_set_text (GTK_LABEL (child), mark_in_words (gtk_label_get_text (GTK_LABEL (child))));

  for (GtkWidget *child = gtk_widget_get_first_child (shortcut); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *text;

      if (!GTK_IS_LABEL (child) || !gtk_widget_get_visible (child))
        continue;
      text = gtk_label_get_text (GTK_LABEL (child));
      if (g_str_equal (text, "/"))
        /* Translators: between two keys that do the same, as a screen
         * reader says the shortcuts window's key caps ("F6 or Shift+F6") */
        g_string_append (words, _(" or "));
      else if (g_str_equal (text, "⋯") || g_str_equal (text, "…"))
        /* Translators: between the first and last key of a range */
        g_string_append (words, _(" to "));
      else
        g_string_append (words, key_in_words (text));
    }
  if (words->len > 0)
    gtk_accessible_update_property (GTK_ACCESSIBLE (shortcut), GTK_ACCESSIBLE_PROPERTY_LABEL, words->str, -1);
  else
    /* No key (a gesture, or none yet): nothing to say. */
    gtk_accessible_reset_property (GTK_ACCESSIBLE (shortcut), GTK_ACCESSIBLE_PROPERTY_LABEL);
  g_string_free (words, TRUE);
}

/*
 * _pd_shortcuts_window_part_speak:
 * @widget: a widget of a shortcuts window
 *
 * Names @widget when it is one of the shortcuts window's parts a reader
 * said by their class: a key cap (kept as its keys change), the section
 * button; its "no results" icon, which says what its text says, is left
 * out.
 */
void
_pd_shortcuts_window_part_speak (GtkWidget *widget)
{
  if (GTK_IS_SHORTCUT_LABEL (widget))
    {
      if (g_object_get_data (G_OBJECT (widget), "pd-keys-named") == NULL)
        {
          g_object_set_data (G_OBJECT (widget), "pd-keys-named", GINT_TO_POINTER (TRUE));
          /* Its labels are made anew, then this is notified. */
          g_signal_connect (widget, "notify::accelerator", G_CALLBACK (shortcut_label_sync), NULL);
        }
      shortcut_label_sync (widget);
    }
  else if (GTK_IS_MENU_BUTTON (widget) && gtk_widget_get_ancestor (widget, GTK_TYPE_HEADER_BAR) != NULL)
    /* Translators: a screen reader's name of the shortcuts window's
     * button choosing which section it shows */
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Sections"), -1);
  else if (GTK_IS_IMAGE (widget) && GTK_IS_GRID (gtk_widget_get_parent (widget)))
    gtk_accessible_update_state (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
}

/*
 * _pd_toast_parts_quiet:
 * @toast: a toast's widget, as it comes into its overlay
 *
 * Makes the toast's box and the holder of its title generic containers:
 * a reader met them as "AdwToastWidget" and "AdwBin"; the title and the
 * buttons inside speak for themselves.  A widget's role can change only
 * until GTK hands its object to AT-SPI, which it has not for a toast's
 * widget as it comes.
 */
void
_pd_toast_parts_quiet (GtkWidget *toast)
{
  if (g_object_get_data (G_OBJECT (toast), "pd-toast-quiet") != NULL)
    return;
  g_object_set_data (G_OBJECT (toast), "pd-toast-quiet", GINT_TO_POINTER (TRUE));
  if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (toast)) == GTK_ACCESSIBLE_ROLE_WIDGET)
    g_object_set (toast, "accessible-role", GTK_ACCESSIBLE_ROLE_GENERIC, NULL);
  for (GtkWidget *child = gtk_widget_get_first_child (toast); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (ADW_IS_BIN (child) && gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (child)) == GTK_ACCESSIBLE_ROLE_WIDGET)
      g_object_set (child, "accessible-role", GTK_ACCESSIBLE_ROLE_GENERIC, NULL);
}

/* --- scroll panes ------------------------------------------------------------ */

static const char *
window_title (GtkWidget *widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);

  return GTK_IS_WINDOW (root) ? gtk_window_get_title (GTK_WINDOW (root)) : NULL;
}

/* What @scroller shows, as the part of the window it is in names it: a
 * status page's title, a preferences page's, a menu's or a choice list's
 * owner, the page of a stack it is on; NULL when none says. */
static char *
scroller_spoken_name (GtkWidget *scroller)
{
  GtkWidget *parent = gtk_widget_get_parent (scroller);
  GtkWidget *owner;

  if (ADW_IS_STATUS_PAGE (parent) && adw_status_page_get_title (ADW_STATUS_PAGE (parent)) != NULL &&
      adw_status_page_get_title (ADW_STATUS_PAGE (parent))[0] != '\0')
    return _pd_accessible_text (adw_status_page_get_title (ADW_STATUS_PAGE (parent)));
  if (ADW_IS_PREFERENCES_PAGE (parent) && adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (parent)) != NULL &&
      adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (parent))[0] != '\0')
    return _pd_without_mnemonic (adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (parent)));
  /* A menu's items, a combo row's or a drop-down's choices. */
  owner = gtk_widget_get_ancestor (scroller, GTK_TYPE_POPOVER_MENU);
  if (owner != NULL)
    return g_strdup (g_object_get_data (G_OBJECT (owner), "pd-menu-name") != NULL
                     ? g_object_get_data (G_OBJECT (owner), "pd-menu-name") : _("Menu"));
  if (gtk_widget_get_ancestor (scroller, GTK_TYPE_POPOVER) != NULL)
    {
      owner = gtk_widget_get_ancestor (scroller, ADW_TYPE_COMBO_ROW);
      if (owner != NULL && adw_preferences_row_get_title (ADW_PREFERENCES_ROW (owner)) != NULL)
        return _pd_without_mnemonic (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (owner)));
      /* Translators: a screen reader's name of a drop-down's list */
      return g_strdup (_("Choices"));
    }
  /* A field that scrolls: its group's title ("Task"). */
  owner = gtk_widget_get_ancestor (scroller, ADW_TYPE_PREFERENCES_GROUP);
  if (owner != NULL && adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (owner)) != NULL &&
      adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (owner))[0] != '\0')
    return _pd_without_mnemonic (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (owner)));
  /* The page of a stack it is on ("Messages", "Events"). */
  for (GtkWidget *w = scroller; w != NULL; w = gtk_widget_get_parent (w))
    {
      GtkWidget *up = gtk_widget_get_parent (w);

      if (GTK_IS_STACK (up))
        return _pd_stack_page_spoken_name (GTK_STACK (up), gtk_stack_get_page (GTK_STACK (up), w));
    }
  return NULL;
}

static GtkWidget *
scroller_content (GtkWidget *scroller)
{
  GtkWidget *child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller));

  if (GTK_IS_VIEWPORT (child))
    child = gtk_viewport_get_child (GTK_VIEWPORT (child));
  return child;
}

static void
scroller_sync (GtkWidget *scroller)
{
  g_autofree char *name = scroller_spoken_name (scroller);
  GtkWidget *content = scroller_content (scroller);

  if (name == NULL && content != NULL &&
      gtk_test_accessible_has_property (GTK_ACCESSIBLE (content), GTK_ACCESSIBLE_PROPERTY_LABEL))
    {
      /* Named as what it holds is (the sources' list, "Sources"). */
      gtk_accessible_update_relation (GTK_ACCESSIBLE (scroller), GTK_ACCESSIBLE_RELATION_LABELLED_BY, content,
                                      NULL, -1);
      return;
    }
  if (name == NULL)
    name = g_strdup (window_title (scroller));
  if (name != NULL && name[0] != '\0')
    gtk_accessible_update_property (GTK_ACCESSIBLE (scroller), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

/*
 * _pd_scroller_speak:
 * @widget: any widget
 *
 * Names @widget, when it is a scroll pane not named yet, for what it
 * shows: GTK 4.8 gives each scrolled window AT-SPI's "scroll pane", a
 * screen reader says it as the focus enters it, and none had a name
 * (read over AT-SPI, issue 23: 20 in the window, 13 in Preferences, 4 in
 * New Session).  A status page's is kept as its title changes.
 */
void
_pd_scroller_speak (GtkWidget *widget)
{
  GtkWidget *parent;

  if (!GTK_IS_SCROLLED_WINDOW (widget))
    return;
  if (g_object_get_data (G_OBJECT (widget), "pd-scroller-named") == NULL)
    {
      /* One named by its own code (an approval's preview) keeps it. */
      if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL) ||
          gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY))
        return;
      g_object_set_data (G_OBJECT (widget), "pd-scroller-named", GINT_TO_POINTER (TRUE));
      parent = gtk_widget_get_parent (widget);
      if (ADW_IS_STATUS_PAGE (parent))
        g_signal_connect_object (parent, "notify::title", G_CALLBACK (scroller_sync), widget, G_CONNECT_SWAPPED);
    }
  scroller_sync (widget);
}
