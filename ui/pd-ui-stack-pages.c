/* pd-ui-stack-pages.c: a stack's pages as a screen reader's cache meets them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8 gives each page of a GtkStack an accessible object of its own
 * (a tab panel) that the GetChildren walk never meets: a stack's children
 * there are its pages' widgets.  A page is still the parent of its widget,
 * and AT-SPI's cache (org.a11y.atspi.Cache.GetItems, what libatspi and so
 * a screen reader reads) holds it: a page without a title was said by its
 * class, "GtkStackPage", 55 of them in the window and 30 more in
 * Preferences (read over AT-SPI, issue 23).  Most were GTK's and
 * libadwaita's own: each page tab's two layouts, a menu's pages, a
 * drop-down's, Preferences' search, the shortcuts window's header.
 *
 * A page's role is fixed (a tab panel), its name is not, and GTK 4.8
 * sends a new name to the cache whenever it is set: each stack's pages
 * are named as the stack is realized, as its window is shown, and as
 * pages come.  Ours have titles (the templates), which GTK names them by;
 * GTK's and libadwaita's are named here for what they show.
 */
#define G_LOG_DOMAIN "pd-ui-stack-pages"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"

#define WATCHED_KEY "pd-stack-pages-named"
#define MENU_NAME_KEY "pd-menu-name"

/*
 * _pd_without_mnemonic:
 * @text: a label as written, "_Recent Sources"
 *
 * Returns: (transfer full): @text as shown, without its mnemonic marks
 */
char *
_pd_without_mnemonic (const char *text)
{
  GString *plain = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          if (p[1] != '_')
            continue;
          p++;
        }
      g_string_append_c (plain, *p);
    }
  return g_string_free (plain, FALSE);
}

static GtkWidget *
ancestor_of_type (GtkWidget  *widget,
                  const char *type_name)
{
  GType type = g_type_from_name (type_name);

  return type != 0 ? gtk_widget_get_ancestor (widget, type) : NULL;
}

/* What GTK's and libadwaita's own pages are called by their internal
 * names (GTK 4.8's menus, drop-downs and shortcuts window, libadwaita
 * 1.2's preferences window). */
static const char *
known_page_name (const char *name)
{
  static const struct { const char *name; const char *words; } known[] = {
    /* Translators: a screen reader's name of a page inside a window:
     * Preferences' list of pages (beside its search) */
    { "pages", N_("Pages") },
    /* Translators: a screen reader's name of a page: the search field
     * and its results in Preferences and the shortcuts window */
    { "search", N_("Search") },
    { "results", N_("Search Results") },
    { "internal-search", N_("Search Results") },
    { "no-results", N_("No Results Found") },
    { "no-search-results", N_("No Results Found") },
    /* Translators: a screen reader's name of the shortcuts window's
     * choice of section */
    { "sections", N_("Sections") },
    /* Translators: a screen reader's name of what a drop-down shows
     * (the choice made, or none) */
    { "item", N_("Choice") },
  };

  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (known); i++)
    if (g_str_equal (name, known[i].name))
      return _(known[i].words);
  return NULL;
}

/* The name of @page of @stack, or NULL where GTK names it (its title). */
static char *
page_spoken_name (GtkStack     *stack,
                  GtkStackPage *page)
{
  const char *title = gtk_stack_page_get_title (page);
  const char *name = gtk_stack_page_get_name (page);
  GtkWidget *child = gtk_stack_page_get_child (page);
  GtkWidget *owner;

  /* A shortcuts section's columns, titled "_1", "_2": the section's
   * title. */
  if (GTK_IS_SHORTCUTS_SECTION (gtk_widget_get_parent (GTK_WIDGET (stack))))
    {
      g_autofree char *section = NULL;

      g_object_get (gtk_widget_get_parent (GTK_WIDGET (stack)), "title", &section, NULL);
      if (section != NULL && section[0] != '\0')
        return g_steal_pointer (&section);
    }
  if (title != NULL && title[0] != '\0')
    return NULL;
  /* A page tab's two layouts (icon beside or above its title): the tab's
   * title. */
  owner = ancestor_of_type (GTK_WIDGET (stack), "AdwViewSwitcherButton");
  if (owner != NULL)
    {
      g_autofree char *label = NULL;

      g_object_get (owner, "label", &label, NULL);
      if (label != NULL && label[0] != '\0')
        return _pd_without_mnemonic (label);
    }
  /* A menu's first page is the menu; a submenu's page is named by its
   * item's label. */
  owner = gtk_widget_get_ancestor (GTK_WIDGET (stack), GTK_TYPE_POPOVER_MENU);
  if (owner != NULL)
    {
      const char *menu = g_object_get_data (G_OBJECT (owner), MENU_NAME_KEY);

      if (g_strcmp0 (name, "main") != 0 && name != NULL && name[0] != '\0')
        return _pd_without_mnemonic (name);
      /* Translators: a screen reader's name of a menu with no other */
      return g_strdup (menu != NULL ? menu : _("Menu"));
    }
  if (known_page_name (name) != NULL)
    return g_strdup (known_page_name (name));
  /* A page showing a text alone says it (the shortcuts window's title). */
  if (GTK_IS_LABEL (child) && gtk_label_get_text (GTK_LABEL (child))[0] != '\0')
    return _pd_accessible_text (gtk_label_get_text (GTK_LABEL (child)));
  if (ADW_IS_STATUS_PAGE (child) && adw_status_page_get_title (ADW_STATUS_PAGE (child)) != NULL)
    return _pd_accessible_text (adw_status_page_get_title (ADW_STATUS_PAGE (child)));
  /* Translators: a screen reader's name of a part of a window that has no
   * other (never shown in the window) */
  return g_strdup (_("Page"));
}

/*
 * _pd_stack_page_spoken_name:
 * @stack: a stack
 * @page: one of its pages
 *
 * Returns: (transfer full): what a screen reader calls @page: its title,
 *   or what _pd_stack_speak() names it
 */
char *
_pd_stack_page_spoken_name (GtkStack     *stack,
                            GtkStackPage *page)
{
  const char *title = gtk_stack_page_get_title (page);
  char *spoken = page_spoken_name (stack, page);

  if (spoken != NULL || title == NULL)
    return spoken;
  return gtk_stack_page_get_use_underline (page) ? _pd_without_mnemonic (title) : g_strdup (title);
}

static void
name_pages (GtkStack *stack)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkStackPage *page = gtk_stack_get_page (stack, child);
      g_autofree char *spoken = page != NULL ? page_spoken_name (stack, page) : NULL;

      if (spoken != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_PROPERTY_LABEL, spoken, -1);
    }
}

static void
on_pages_changed (GListModel *pages,
                  guint       position,
                  guint       removed,
                  guint       added,
                  gpointer    stack)
{
  if (added > 0)
    name_pages (GTK_STACK (stack));
}

/*
 * _pd_stack_speak:
 * @widget: any widget
 *
 * When @widget is a stack, names each of its pages without a title, now
 * and as pages come (a menu's, made again with each new menu).
 */
void
_pd_stack_speak (GtkWidget *widget)
{
  GtkSelectionModel *pages;

  if (!GTK_IS_STACK (widget))
    return;
  if (g_object_get_data (G_OBJECT (widget), WATCHED_KEY) == NULL)
    {
      /* The stack keeps its pages' model while it is held: it lives
       * with the stack, as the handler does. */
      pages = gtk_stack_get_pages (GTK_STACK (widget));
      g_object_set_data_full (G_OBJECT (widget), WATCHED_KEY, pages, g_object_unref);
      g_signal_connect_object (pages, "items-changed", G_CALLBACK (on_pages_changed), widget, 0);
    }
  name_pages (GTK_STACK (widget));
}

/*
 * _pd_stack_pages_speak:
 * @root: a widget, a window as it is shown
 *
 * _pd_stack_speak() for every stack below @root, in its menus too.
 */
void
_pd_stack_pages_speak (GtkWidget *root)
{
  _pd_stack_speak (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_stack_pages_speak (child);
}

/*
 * _pd_menu_set_name:
 * @menu: a popover menu
 * @name: what a screen reader calls it ("Main Menu")
 *
 * Names @menu: GTK 4.8 names a menu nothing, and AT-SPI said its class,
 * "GtkPopoverMenu".  Its first page is named the same.
 */
void
_pd_menu_set_name (GtkWidget  *menu,
                   const char *name)
{
  g_return_if_fail (GTK_IS_POPOVER_MENU (menu));

  g_object_set_data_full (G_OBJECT (menu), MENU_NAME_KEY, g_strdup (name), g_free);
  gtk_accessible_update_property (GTK_ACCESSIBLE (menu), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  _pd_stack_pages_speak (menu);
}
