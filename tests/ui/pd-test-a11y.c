/* pd-test-a11y.c: what a screen reader hears, for the ui tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8 has no public getter for a widget's accessible name, so this
 * computes it the way GTK 4.8's AT-SPI backend does (gtk_at_context_get_name,
 * checked against the Name an AT-SPI client reads over the accessibility
 * bus): the LABEL property, then the LABEL of each accessible LABELLED_BY
 * names, joined by spaces; an accessible named by the relation that has no
 * LABEL gives its class name while nothing came before it; with no name at
 * all, any role but a structural one gives the class name. A tooltip is
 * only the description.
 *
 * The values are read through gtk_test_accessible_check_property(), which
 * returns the value it finds when it differs from the one asked for; the
 * tests run with GTK_A11Y=test, so every widget has an AT context.
 */
#define G_LOG_DOMAIN "pd-test-a11y"

#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "pd-plan-row.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

/* A value no widget carries, so check_property always returns the real one. */
#define NO_SUCH_VALUE "\x01pd-test-a11y\x01"

static char *
string_property (gpointer               widget,
                 GtkAccessibleProperty  property)
{
  char *value;

  if (!gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), property))
    return NULL;
  value = gtk_test_accessible_check_property (GTK_ACCESSIBLE (widget), property, NO_SUCH_VALUE);
  if (value != NULL && *value == '\0')
    g_clear_pointer (&value, g_free);
  return value;
}

static gboolean
is_structural (GtkAccessibleRole role)
{
  switch ((int) role)
    {
    case GTK_ACCESSIBLE_ROLE_FORM:
    case GTK_ACCESSIBLE_ROLE_GROUP:
    case GTK_ACCESSIBLE_ROLE_GENERIC:
    case GTK_ACCESSIBLE_ROLE_LANDMARK:
    case GTK_ACCESSIBLE_ROLE_LIST_ITEM:
    case GTK_ACCESSIBLE_ROLE_REGION:
    case GTK_ACCESSIBLE_ROLE_SEARCH:
    case GTK_ACCESSIBLE_ROLE_SEPARATOR:
    case GTK_ACCESSIBLE_ROLE_NONE:
    case GTK_ACCESSIBLE_ROLE_PRESENTATION:
      return TRUE;
    default:
      return FALSE;
    }
}

static GtkWidget *
find_by_address (GtkWidget *root,
                 gpointer   address)
{
  if ((gpointer) root == address)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_by_address (child, address);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The widgets a relation points at. Its printed form is "Type<0xADDRESS>"
 * for each; the address is looked up among the widgets of the same
 * toplevel (a relation to a widget elsewhere is not followed). */
static GPtrArray *
relation_targets (GtkWidget             *widget,
                  GtkAccessibleRelation  relation)
{
  GPtrArray *targets = g_ptr_array_new ();
  g_autofree char *printed = NULL;
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (widget));
  const char *p;

  if (!gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget), relation))
    return targets;
  printed = gtk_test_accessible_check_relation (GTK_ACCESSIBLE (widget), relation, NULL);
  for (p = printed; p != NULL && (p = strstr (p, "<0x")) != NULL; p++)
    {
      gpointer address = NULL;
      GtkWidget *target;

      if (sscanf (p + 1, "%p", &address) != 1)
        continue;
      target = root != NULL ? find_by_address (root, address) : NULL;
      if (target != NULL)
        g_ptr_array_add (targets, target);
    }
  return targets;
}

char *
pd_test_a11y_name (GtkWidget *widget)
{
  g_autoptr(GPtrArray) targets = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  char *label;

  g_assert_cmpstr (g_getenv ("GTK_A11Y"), ==, "test");

  label = string_property (widget, GTK_ACCESSIBLE_PROPERTY_LABEL);
  if (label != NULL)
    g_ptr_array_add (names, label);

  targets = relation_targets (widget, GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  for (guint i = 0; i < targets->len; i++)
    {
      GtkWidget *target = g_ptr_array_index (targets, i);
      char *part = string_property (target, GTK_ACCESSIBLE_PROPERTY_LABEL);

      if (part != NULL)
        g_ptr_array_add (names, part);
      else if (names->len == 0 &&
               !is_structural (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (target))))
        g_ptr_array_add (names, g_strdup (G_OBJECT_TYPE_NAME (target)));
    }

  if (names->len == 0 &&
      !is_structural (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget))))
    g_ptr_array_add (names, g_strdup (G_OBJECT_TYPE_NAME (widget)));
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

char *
pd_test_a11y_description (GtkWidget *widget)
{
  g_autoptr(GPtrArray) targets = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *own = string_property (widget, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  if (own != NULL)
    g_string_append (text, own);
  targets = relation_targets (widget, GTK_ACCESSIBLE_RELATION_DESCRIBED_BY);
  for (guint i = 0; i < targets->len; i++)
    {
      g_autofree char *part = string_property (g_ptr_array_index (targets, i),
                                               GTK_ACCESSIBLE_PROPERTY_LABEL);

      if (part == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, ' ');
      g_string_append (text, part);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* @word without its underscores: "Un_pin" is "Unpin". */
static char *
without_underscores (const char *word)
{
  GString *out = g_string_new (NULL);

  for (const char *p = word; *p != '\0'; p++)
    if (*p != '_')
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* A name said twice: "_Approve Once Approve Once", a mnemonic button's raw
 * label and then its label's text (GTK 4.8 names such a button both ways).
 * Compared with the underscores left out. */
static gboolean
name_is_doubled (char **words)
{
  guint n = g_strv_length (words);

  if (n == 0 || n % 2 != 0)
    return FALSE;
  for (guint i = 0; i < n / 2; i++)
    {
      g_autofree char *a = without_underscores (words[i]);
      g_autofree char *b = without_underscores (words[i + n / 2]);

      if (!g_str_equal (a, b))
        return FALSE;
    }
  return TRUE;
}

/* A name that is empty, that says a class ("GtkImage", "AdwEntryRow",
 * "PdPlanRow") or that says the same thing twice tells a person nothing,
 * or tells it badly. */
static gboolean
name_is_useless (const char *name)
{
  g_auto(GStrv) words = NULL;

  if (name == NULL || *name == '\0')
    return TRUE;
  /* A stack page's internal name, "_1" (a shortcuts section's column). */
  if (name[0] == '_' && name[1] != '\0' && strspn (name + 1, "0123456789") == strlen (name + 1))
    return TRUE;
  words = g_strsplit (name, " ", -1);
  if (name_is_doubled (words))
    return TRUE;
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *w = words[i];

      if ((g_str_has_prefix (w, "Gtk") && g_ascii_isupper (w[3])) ||
          (g_str_has_prefix (w, "Adw") && g_ascii_isupper (w[3])) ||
          (g_str_has_prefix (w, "Pd") && g_ascii_isupper (w[2])))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_control_role (GtkAccessibleRole role)
{
  switch ((int) role)
    {
    case GTK_ACCESSIBLE_ROLE_BUTTON:
    case GTK_ACCESSIBLE_ROLE_CHECKBOX:
    case GTK_ACCESSIBLE_ROLE_COMBO_BOX:
    case GTK_ACCESSIBLE_ROLE_LINK:
    case GTK_ACCESSIBLE_ROLE_MENU_ITEM:
    case GTK_ACCESSIBLE_ROLE_MENU_ITEM_CHECKBOX:
    case GTK_ACCESSIBLE_ROLE_MENU_ITEM_RADIO:
    case GTK_ACCESSIBLE_ROLE_OPTION:
    case GTK_ACCESSIBLE_ROLE_RADIO:
    case GTK_ACCESSIBLE_ROLE_SEARCH_BOX:
    case GTK_ACCESSIBLE_ROLE_SLIDER:
    case GTK_ACCESSIBLE_ROLE_SPIN_BUTTON:
    case GTK_ACCESSIBLE_ROLE_SWITCH:
    case GTK_ACCESSIBLE_ROLE_TAB:
    case GTK_ACCESSIBLE_ROLE_TEXT_BOX:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The accessible a focusable widget speaks for: itself, or for a part with
 * no role of its own (the GtkText inside an entry, a spin button's steps)
 * the nearest ancestor that has one. */
static GtkWidget *
speaking_widget (GtkWidget *widget)
{
  /* A part with no role is not in the AT-SPI tree at all: a name given to
   * it (libadwaita 1.2's entry row's GtkText, labelled by its row) is
   * never heard. */
  while (widget != NULL &&
         gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_NONE)
    widget = gtk_widget_get_parent (widget);
  return widget;
}

static void
describe_place (GtkWidget *widget,
                GString   *out)
{
  const char *tooltip = gtk_widget_get_tooltip_text (widget);
  GtkWidget *label = NULL;
  g_autofree char *role = g_enum_to_string (GTK_TYPE_ACCESSIBLE_ROLE,
                                            gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)));

  for (GtkWidget *w = gtk_widget_get_first_child (widget); w != NULL && label == NULL;
       w = gtk_widget_get_next_sibling (w))
    if (GTK_IS_LABEL (w))
      label = w;
  g_string_append_printf (out, "%s (%s)", G_OBJECT_TYPE_NAME (widget), role);
  if (gtk_widget_get_name (widget) != NULL &&
      g_strcmp0 (gtk_widget_get_name (widget), G_OBJECT_TYPE_NAME (widget)) != 0)
    g_string_append_printf (out, " #%s", gtk_widget_get_name (widget));
  if (tooltip != NULL)
    g_string_append_printf (out, " tooltip “%s”", tooltip);
  if (label != NULL)
    g_string_append_printf (out, " label “%s”", gtk_label_get_text (GTK_LABEL (label)));
  if (gtk_widget_get_parent (widget) != NULL)
    {
      g_auto(GStrv) classes = gtk_widget_get_css_classes (widget);
      g_autofree char *joined = g_strjoinv (".", classes);

      g_string_append_printf (out, " .%s under %s", joined, G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)));
    }
  for (GtkWidget *a = gtk_widget_get_parent (widget); a != NULL; a = gtk_widget_get_parent (a))
    if (g_str_has_prefix (G_OBJECT_TYPE_NAME (a), "Pd") || ADW_IS_PREFERENCES_ROW (a))
      {
        g_string_append_printf (out, " in %s", G_OBJECT_TYPE_NAME (a));
        if (ADW_IS_PREFERENCES_ROW (a))
          g_string_append_printf (out, " “%s”", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (a)));
        break;
      }
}

/* Text a reader gets with layout in it: a bidi isolate or mark
 * (U+2066–U+2069, U+200E, U+200F, U+202A–U+202E) or a figure space
 * (U+2007). The shown text may carry them; a name or description must not. */
static gboolean
has_formatting (const char *text)
{
  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x2007 ||
          (c >= 0x202A && c <= 0x202E))
        return TRUE;
    }
  return FALSE;
}

/* Adds to @out the name or description of @widget that carries formatting
 * characters. A label that is no Tab stop is read as the text it shows;
 * every other part is checked, a structural one too: a status page is a
 * group named by its title and described by its description (an
 * endpoint's page said its name between isolates). */
static void
check_formatting (GtkWidget *widget,
                  GPtrArray *out)
{
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;

  if (GTK_IS_LABEL (widget) && !gtk_widget_get_focusable (widget))
    return;
  name = pd_test_a11y_name (widget);
  description = pd_test_a11y_description (widget);
  if (has_formatting (name) || has_formatting (description))
    {
      GString *line = g_string_new (NULL);

      describe_place (widget, line);
      g_string_append_printf (line, ": formatting characters in name “%s” or description “%s”",
                              name, description);
      g_ptr_array_add (out, g_string_free (line, FALSE));
    }
}

/* A button takes focus itself and never passes it to what it holds (the
 * list item a drop-down shows in its button). */
static gboolean
inside_button (GtkWidget *widget)
{
  return gtk_widget_get_ancestor (gtk_widget_get_parent (widget), GTK_TYPE_BUTTON) != NULL;
}

/* Counts @speaker as a control, and lists it when its name says nothing. */
static void
check_named (GtkWidget  *speaker,
             GHashTable *seen,
             GPtrArray  *unnamed,
             guint      *n_controls)
{
  g_autofree char *name = NULL;

  if (g_hash_table_contains (seen, speaker))
    return;
  name = pd_test_a11y_name (speaker);
  g_hash_table_add (seen, speaker);
  (*n_controls)++;
  if (name_is_useless (name))
    {
      GString *line = g_string_new (NULL);

      describe_place (speaker, line);
      g_string_append_printf (line, ": name “%s”", name);
      g_ptr_array_add (unnamed, g_string_free (line, FALSE));
    }
}

/* The pages of a stack: each a screen reader meets in AT-SPI's cache, the
 * parent of its page's widget, said "GtkStackPage" with no name (GTK 4.8;
 * issue 23); "_1" is none either (a shortcuts section's title). */
static void
check_stack_pages (GtkStack   *stack,
                   GPtrArray  *unnamed)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkStackPage *page = gtk_stack_get_page (stack, child);
      g_autofree char *label = string_property (page, GTK_ACCESSIBLE_PROPERTY_LABEL);

      if (label == NULL || name_is_useless (label))
        g_ptr_array_add (unnamed, g_strdup_printf ("a page of %s in %s: name “%s”", G_OBJECT_TYPE_NAME (stack),
                                                   G_OBJECT_TYPE_NAME (gtk_widget_get_parent (GTK_WIDGET (stack))),
                                                   label != NULL ? label : ""));
    }
}

static gboolean
is_text_role (GtkAccessibleRole role)
{
  return role == GTK_ACCESSIBLE_ROLE_TEXT_BOX || role == GTK_ACCESSIBLE_ROLE_SEARCH_BOX ||
         role == GTK_ACCESSIBLE_ROLE_SPIN_BUTTON;
}

/* A one-line field's GtkText (what takes the focus and holds the text) has
 * no role on GTK 4.8. A screen reader meets the field as the entry that
 * holds it, a GtkEntry, GtkPasswordEntry, GtkSearchEntry or GtkSpinButton:
 * an editable with a text role whose delegate is this GtkText, which AT-SPI
 * shows focused while the GtkText is and whose text it reads. The GtkText
 * of libadwaita 1.2's AdwEntryRow sits in the row's own boxes: over AT-SPI
 * no node was focused in it and none held its text, whatever its name. */
static gboolean
text_has_holder (GtkWidget *text)
{
  GtkWidget *holder = gtk_widget_get_parent (text);

  return holder != NULL && GTK_IS_EDITABLE (holder) &&
         gtk_editable_get_delegate (GTK_EDITABLE (holder)) == GTK_EDITABLE (text) &&
         is_text_role (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (holder)));
}

/* The images of a password field: its Caps Lock warning is met once Caps
 * Lock is on, hidden or drawn now (it was met with no name). */
static void
check_password_images (GtkWidget  *entry,
                       GHashTable *seen,
                       GPtrArray  *unnamed,
                       guint      *n_controls)
{
  for (GtkWidget *child = gtk_widget_get_first_child (entry); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *hidden = NULL;

      if (!GTK_IS_IMAGE (child))
        continue;
      hidden = gtk_test_accessible_check_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE);
      if (hidden == NULL && gtk_widget_get_visible (child))
        continue;  /* kept out of the tree */
      check_named (child, seen, unnamed, n_controls);
    }
}

static void
collect (GtkWidget  *widget,
         GHashTable *seen,
         GPtrArray  *unnamed,
         guint      *n_controls)
{
  /* A menu and a search field are in the tree a screen reader walks
   * before they show: "GtkPopoverMenu", "GtkSearchEntry". */
  if (GTK_IS_POPOVER_MENU (widget) || GTK_IS_SEARCH_ENTRY (widget))
    check_named (widget, seen, unnamed, n_controls);
  if (!gtk_widget_get_mapped (widget))
    return;

  if (GTK_IS_STACK (widget))
    check_stack_pages (GTK_STACK (widget), unnamed);

  if (GTK_IS_PASSWORD_ENTRY (widget))
    check_password_images (widget, seen, unnamed, n_controls);

  /* A scroll bar drawn is in the tree a screen reader browses: GTK 4.8
   * names it nothing, which AT-SPI gives as "GtkScrollbar". */
  if (GTK_IS_SCROLLBAR (widget))
    check_named (widget, seen, unnamed, n_controls);

  if (GTK_IS_TEXT (widget) && gtk_widget_get_focusable (widget) &&
      gtk_editable_get_editable (GTK_EDITABLE (widget)) && !text_has_holder (widget))
    {
      GString *line = g_string_new (NULL);
      GtkWidget *holder = gtk_widget_get_parent (widget);

      while (holder != NULL && !ADW_IS_PREFERENCES_ROW (holder) && gtk_widget_get_parent (holder) != NULL &&
             !GTK_IS_EDITABLE (holder))
        holder = gtk_widget_get_parent (holder);
      describe_place (holder != NULL ? holder : widget, line);
      g_string_append (line, ": a text field with no text box a screen reader finds "
                             "(its GtkText is no entry's; nothing is focused in it, nothing holds its text)");
      g_ptr_array_add (unnamed, g_string_free (line, FALSE));
      (*n_controls)++;
    }

  /* An item of a drop-down's open list takes the focus: unnamed, a
   * screen reader said only "list item" for each choice. */
  if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM &&
      gtk_widget_get_focusable (widget) && gtk_widget_get_ancestor (widget, GTK_TYPE_POPOVER) != NULL)
    check_named (widget, seen, unnamed, n_controls);

  /* A list box's row that takes the focus is a Tab stop of its own: with
   * no name a reader says "list item" and nothing else (the row holding an
   * expanded profile's Remove Profile). A list view's item cannot be named
   * on GTK 4.8 (the row widget inside it is named), a list box's row can. */
  if (GTK_IS_LIST_BOX_ROW (widget) && gtk_widget_get_focusable (widget) &&
      gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
    check_named (widget, seen, unnamed, n_controls);

  /* A preferences row is met by a reader browsing the list, a Tab stop
   * or not: a profile's untitled Remove row was "GtkLabel", its empty
   * title. */
  if (ADW_IS_PREFERENCES_ROW (widget) && !is_structural (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget))))
    check_named (widget, seen, unnamed, n_controls);

  check_formatting (widget, unnamed);
  if (is_control_role (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget))) ||
      (gtk_widget_get_focusable (widget) && !inside_button (widget)))
    {
      GtkWidget *speaker = speaking_widget (widget);
      GtkAccessibleRole role = speaker ? gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (speaker)) : GTK_ACCESSIBLE_ROLE_NONE;

      /* Rows are checked by the row tests; structural parts that take
       * focus (a scrolled list) are named by what they hold. */
      if (speaker != NULL &&
          (is_control_role (role) || !is_structural (role)) &&
          role != GTK_ACCESSIBLE_ROLE_LIST && role != GTK_ACCESSIBLE_ROLE_ROW &&
          role != GTK_ACCESSIBLE_ROLE_GRID && role != GTK_ACCESSIBLE_ROLE_TREE_GRID)
        check_named (speaker, seen, unnamed, n_controls);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, seen, unnamed, n_controls);
}

GPtrArray *
pd_test_a11y_unnamed (GtkWidget *root,
                      guint     *n_controls)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GPtrArray *unnamed = g_ptr_array_new_with_free_func (g_free);
  guint count = 0;

  /* A window is named by its title: the shortcuts window had none and
   * said "GtkShortcutsWindow". */
  if (GTK_IS_WINDOW (root))
    check_named (root, seen, unnamed, &count);
  collect (root, seen, unnamed, &count);
  if (n_controls != NULL)
    *n_controls = count;
  return unnamed;
}

void
pd_test_a11y_assert_named (GtkWidget  *root,
                           const char *where)
{
  guint n_controls = 0;
  g_autoptr(GPtrArray) unnamed = pd_test_a11y_unnamed (root, &n_controls);

  g_test_message ("%s: %u controls, %u unnamed or named by their class",
                  where, n_controls, unnamed->len);
  for (guint i = 0; i < unnamed->len; i++)
    g_test_message ("  unnamed: %s", (char *) g_ptr_array_index (unnamed, i));
  if (unnamed->len > 0)
    {
      g_autofree char *message = g_strdup_printf ("%s: %u of %u controls have no name a screen reader can say (first: %s)",
                                                  where, unnamed->len, n_controls,
                                                  (char *) g_ptr_array_index (unnamed, 0));

      g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message);
    }
}

/* --- what a reader meets twice ------------------------------------------------ */

/* Whether @widget is kept out of the reader's tree: hidden (not visible),
 * or given the hidden state. */
static gboolean
kept_out (GtkWidget *widget)
{
  g_autofree char *not_hidden = NULL;

  if (!gtk_widget_get_visible (widget) || GTK_IS_POPOVER (widget))
    return TRUE;
  if (!gtk_test_accessible_has_state (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_STATE_HIDDEN))
    return FALSE;
  not_hidden = gtk_test_accessible_check_state (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_STATE_HIDDEN, FALSE);
  return not_hidden != NULL;
}

static void
collect_twins (GtkWidget  *widget,
               GHashTable *names,
               GPtrArray  *twice)
{
  if (kept_out (widget))
    return;
  if (is_control_role (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget))))
    {
      char *name = pd_test_a11y_name (widget);
      GtkWidget *first = g_hash_table_lookup (names, name);

      if (first != NULL)
        {
          GString *line = g_string_new (NULL);

          describe_place (widget, line);
          g_string_append_printf (line, ": “%s” a second time (%s the first, %s)", name,
                                  G_OBJECT_TYPE_NAME (first),
                                  gtk_widget_get_mapped (first) ? "drawn" : "not drawn");
          g_ptr_array_add (twice, g_string_free (line, FALSE));
          g_free (name);
        }
      else
        g_hash_table_insert (names, name, widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_twins (child, names, twice);
}

/**
 * pd_test_a11y_assert_once:
 * @root: a dialog
 * @where: what it is, for the messages
 *
 * Fails when a reader meets two controls of @root with the same name: its
 * tree on GTK 4.8 holds what is visible, drawn or not (libadwaita 1.2's
 * message dialog has each response's button twice, one of them never
 * drawn: the approval's Deny and Approve Once were each met twice).
 */
void
pd_test_a11y_assert_once (GtkWidget  *root,
                          const char *where)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) twice = g_ptr_array_new_with_free_func (g_free);

  collect_twins (root, names, twice);
  g_test_message ("%s: %u controls a reader meets, %u of them twice", where,
                  g_hash_table_size (names) + twice->len, twice->len);
  for (guint i = 0; i < twice->len; i++)
    g_test_message ("  twice: %s", (char *) g_ptr_array_index (twice, i));
  if (twice->len > 0)
    {
      g_autofree char *message = g_strdup_printf ("%s: %u controls met twice by a reader (first: %s)", where,
                                                  twice->len, (char *) g_ptr_array_index (twice, 0));

      g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message);
    }
}

static gboolean
is_button_with_label (GtkWidget     *widget,
                      gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

/**
 * pd_test_a11y_assert_remove_named:
 * @root: where the button is
 * @label: the button's label ("_Remove")
 * @name: the name it and the row holding it must have
 *
 * A Remove button and its row are named by what they remove, once: an
 * untitled row was "GtkLabel", an endpoint's "Remove from the Window"
 * alike for each, its button "Remove Build box Remove".
 */
void
pd_test_a11y_assert_remove_named (GtkWidget  *root,
                                  const char *label,
                                  const char *name)
{
  GtkWidget *remove = pd_test_find_first (root, is_button_with_label, label);
  g_autofree char *button_name = NULL;
  g_autofree char *row_name = NULL;

  g_assert_nonnull (remove);
  button_name = pd_test_a11y_name (remove);
  row_name = pd_test_a11y_name (gtk_widget_get_ancestor (remove, ADW_TYPE_ACTION_ROW));
  g_test_message ("%s: “%s”, its row: “%s”", label, button_name, row_name);
  g_assert_cmpstr (button_name, ==, name);
  g_assert_cmpstr (row_name, ==, name);
}

/* --- what a reader meets browsing object by object ------------------------- */

/* Shown to AT-SPI: GTK 4.8 leaves out of its tree only what is hidden (not
 * visible), a stack's other pages included; a popover is its own part. */
static gboolean
presented (GtkWidget *widget)
{
  g_autofree char *not_hidden = NULL;

  if (!gtk_widget_get_visible (widget) || GTK_IS_POPOVER (widget) ||
      gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_NONE)
    return FALSE;
  /* The hidden state (an empty label's) keeps it out of the tree. */
  if (!gtk_test_accessible_has_state (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_STATE_HIDDEN))
    return TRUE;
  not_hidden = gtk_test_accessible_check_state (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_STATE_HIDDEN, FALSE);
  return not_hidden == NULL;
}

static void
add_browsed (GPtrArray  *out,
             GtkWidget  *widget,
             const char *what,
             const char *name)
{
  GString *line = g_string_new (NULL);

  describe_place (widget, line);
  g_string_append_printf (line, ": %s “%s”", what, name);
  g_ptr_array_add (out, g_string_free (line, FALSE));
}

static void
collect_browsed (GtkWidget *widget,
                 GPtrArray *out)
{
  GtkAccessibleRole role;

  if (!gtk_widget_get_visible (widget) || GTK_IS_POPOVER (widget))
    return;
  role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget));
  if (presented (widget))
    {
      g_autofree char *name = pd_test_a11y_name (widget);
      g_autofree char *description = pd_test_a11y_description (widget);

      /* A label is read by its name: an empty one was "GtkLabel" (the
       * Events page's count, the checklist's summary, the History page's
       * heading before a version is chosen), isolates were said. */
      if (role == GTK_ACCESSIBLE_ROLE_LABEL && name_is_useless (name))
        add_browsed (out, widget, "a label named", name);
      if (has_formatting (name) || has_formatting (description))
        add_browsed (out, widget, "formatting characters in the name or description of", name);
      /* An icon is named by what it means, or left out (the presentation
       * role, the hidden state) when the text beside it says it: decorative
       * ones were said "GtkImage" (a row's arrow, a tab's icon, the
       * connection banner's), a password field's Show Text the same. */
      if (role == GTK_ACCESSIBLE_ROLE_IMG && name_is_useless (name))
        add_browsed (out, widget, "an image named", name);
      /* A list is named by what it lists ("GtkListBox", "GtkColumnListView"). */
      if ((role == GTK_ACCESSIBLE_ROLE_LIST || role == GTK_ACCESSIBLE_ROLE_GRID ||
           role == GTK_ACCESSIBLE_ROLE_TREE_GRID) && name_is_useless (name))
        add_browsed (out, widget, "a list named", name);
      /* The current item a drop-down or a combo row shows in its button
       * takes the focus ("GtkListItemWidget"). */
      if (gtk_widget_get_focusable (widget) && gtk_widget_get_ancestor (widget, GTK_TYPE_DROP_DOWN) != NULL &&
          inside_button (widget) && name_is_useless (name))
        add_browsed (out, widget, "a drop-down's current item named", name);
      if (role == GTK_ACCESSIBLE_ROLE_LIST_ITEM && gtk_widget_get_focusable (widget) &&
          gtk_widget_get_ancestor (widget, ADW_TYPE_COMBO_ROW) != NULL && name_is_useless (name))
        add_browsed (out, widget, "a combo row's current item named", name);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_browsed (child, out);
}

/**
 * pd_test_a11y_browsed:
 * @root: a window
 *
 * What a screen reader browsing object by object (not by Tab) meets that
 * says nothing or says it badly: labels and lists named by their class or
 * by nothing, a drop-down's current item named by its class, names and
 * descriptions with bidi isolates in them. Each widget in the accessible
 * tree is looked at, the pages of a stack not shown too, as AT-SPI lists
 * them on GTK 4.8.
 *
 * Returns: (transfer full): one line for each.
 */
GPtrArray *
pd_test_a11y_browsed (GtkWidget *root)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  collect_browsed (root, out);
  return out;
}

/* --- helpers of the a11y tests ---------------------------------------------- */

/* The window shows a session (for pd_test_wait_until()). */
gboolean
pd_test_a11y_window_settled (gpointer data)
{
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (data), ADW_TYPE_VIEW_STACK);
  GtkStack *pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return g_strcmp0 (gtk_stack_get_visible_child_name (pages), "session") == 0;
}

/* The stack of a session's pages: Now, Transcript, Events, History. */
AdwViewStack *
pd_test_a11y_view_stack (PdWindow *window)
{
  return ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
}

/* A shown widget with the row role (a list's row, the header row). */
gboolean
pd_test_a11y_is_row (GtkWidget     *widget,
                     gconstpointer  data)
{
  return gtk_widget_get_mapped (widget) &&
         gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_ROW;
}

/* Adds to @rows each shown row below @widget, in order. */
void
pd_test_a11y_collect_rows (GtkWidget *widget,
                           GPtrArray *rows)
{
  if (pd_test_a11y_is_row (widget, NULL))
    g_ptr_array_add (rows, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    pd_test_a11y_collect_rows (child, rows);
}

/* Activates the shortcut @widget has for the key, as pressing it would: the
 * widget's own shortcut controllers are searched for that trigger, those
 * of the capture phase first, as a key event meets them. */
gboolean
pd_test_a11y_press (GtkWidget       *widget,
                    guint            keyval,
                    GdkModifierType  mods)
{
  g_autoptr(GtkShortcutTrigger) wanted = gtk_keyval_trigger_new (keyval, mods);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  guint n = g_list_model_get_n_items (controllers);

  for (guint k = 0; k < 2 * n; k++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, k % n);
      gboolean capture = GTK_IS_EVENT_CONTROLLER (controller) &&
                         gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (controller)) == GTK_PHASE_CAPTURE;

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller) || capture != (k < n))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

/* The Tab stops of @window, in order, from nothing focused round to the
 * first again. */
GPtrArray *
pd_test_a11y_tab_stops (GtkWindow *window)
{
  GPtrArray *stops = g_ptr_array_new ();

  gtk_root_set_focus (GTK_ROOT (window), NULL);
  for (guint i = 0; i < 300; i++)
    {
      GtkWidget *focus;

      if (!gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD))
        {
          gtk_root_set_focus (GTK_ROOT (window), NULL);
          if (!gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD))
            break;
        }
      focus = gtk_root_get_focus (GTK_ROOT (window));
      if (focus == NULL || g_ptr_array_find (stops, focus, NULL))
        break;
      g_ptr_array_add (stops, focus);
    }
  return stops;
}

/* The focus is on @widget or inside it. */
gboolean
pd_test_a11y_focus_inside (GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* Tab from a row of the page's list leaves the list, as does Shift+Tab:
 * the list is one Tab stop. */
void
pd_test_a11y_assert_one_tab_stop (PdWindow   *window,
                                  const char *page,
                                  GType       view_type,
                                  GType       list_type)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), view_type);
  GtkWidget *rows = pd_test_find_widget (view, list_type);

  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), page);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (rows));
  /* From outside the list (a page switch may have left the focus in it). */
  gtk_root_set_focus (GTK_ROOT (window), NULL);
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_focus_inside (rows));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_Tab, 0));
  g_assert_false (pd_test_a11y_focus_inside (rows));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (pd_test_a11y_focus_inside (rows));
  g_test_message ("%s: its list is one Tab stop", page);
}

/* Waits for a message dialog (@what names it if it never comes). */
AdwMessageDialog *
pd_test_a11y_wait_for_message_dialog (const char *what)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG), what);
  dialog = pd_test_mapped_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  pd_test_flush (GTK_WIDGET (dialog));
  return ADW_MESSAGE_DIALOG (dialog);
}

/* @text is said whole by @label or a widget around it: a tooltip, an
 * accessible name or description. */
static gboolean
text_said_elsewhere (GtkWidget  *label,
                     const char *text)
{
  for (GtkWidget *w = label; w != NULL && !GTK_IS_WINDOW (w); w = gtk_widget_get_parent (w))
    {
      const char *tooltip = gtk_widget_get_tooltip_text (w);
      /* A label's own name is its text, whole or cut: not elsewhere. */
      g_autofree char *name = w != label ? pd_test_a11y_name (w) : NULL;
      g_autofree char *description = pd_test_a11y_description (w);

      /* A label that gives its tooltip only when cut (a session row's
       * title) answers the query, with its own text. */
      if (w == label && tooltip == NULL && gtk_widget_get_has_tooltip (w))
        {
          g_autoptr(GtkTooltip) query = g_object_new (GTK_TYPE_TOOLTIP, NULL);
          gboolean answered = FALSE;

          g_signal_emit_by_name (w, "query-tooltip", 1, 1, FALSE, query, &answered);
          if (answered)
            return TRUE;
        }
      if ((tooltip != NULL && strstr (tooltip, text) != NULL) ||
          (name != NULL && strstr (name, text) != NULL) ||
          (description != NULL && strstr (description, text) != NULL))
        return TRUE;
    }
  return FALSE;
}

/* Counts the shown labels below @root that show less than their text:
 * narrower than their text, neither wrapped whole nor ellipsized with the
 * whole text said elsewhere (a tooltip, an accessible name). A page
 * switcher's tab and the text of a plan step are never to be cut. */
guint
pd_test_a11y_count_cut_labels (GtkWidget  *root,
                               const char *where)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n_cut = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      const char *text = gtk_label_get_text (GTK_LABEL (label));
      /* Cut with the text said elsewhere is right for a title; a page's
       * tab and a step's text (its note, a check) are to be read whole. */
      gboolean whole = gtk_widget_get_ancestor (label, ADW_TYPE_VIEW_SWITCHER) != NULL ||
                       gtk_widget_get_ancestor (label, PD_TYPE_PLAN_ROW) != NULL;
      PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
      gboolean ellipsized;
      int drawn = 0;
      int width;

      if (!gtk_widget_get_mapped (label) || *text == '\0')
        continue;
      /* The text as laid out against the label's own width (its CSS box
       * apart): a wrapping label wraps to it, an ellipsizing one cuts. */
      width = gtk_widget_get_width (label);
      pango_layout_get_pixel_size (layout, &drawn, NULL);
      ellipsized = pango_layout_is_ellipsized (layout);
      if (!ellipsized && drawn <= width + 1)
        continue;
      if (ellipsized && !whole && text_said_elsewhere (label, text))
        continue;
      g_test_message ("%s: “%s” (in %s) is cut to %d px (text %d px), %s", where, text,
                      G_OBJECT_TYPE_NAME (gtk_widget_get_parent (label)), width, drawn,
                      !ellipsized ? "clipped" : whole ? "ellipsized" : "ellipsized, the text said nowhere else");
      n_cut++;
    }
  return n_cut;
}
