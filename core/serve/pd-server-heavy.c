/* pd-server-heavy.c: the reads of imported sessions' transcripts.
 *
 * An imported session's record, plan, history, export and events are read
 * from its agent's transcript, and of a long one that costs hundreds of MB
 * for a while.  Such a read runs here: on threads and database connections
 * of its own (PD_SERVER_HEAVY_READERS of each), so the session list, the
 * health check and the other light reads never wait behind one; once per
 * question at a time (the same key: the route, the session, its transcript's
 * signature and the database's generation), every request asking it while
 * it runs waiting for it and answered with the same bytes; at most
 * PD_SERVER_HEAVY_PER_CLIENT started by one client address at once (past
 * that, 429 with Retry-After); a long answer counts in its client's share
 * until it is written, so a client that asks and never reads holds no more
 * than its share of answers; and in the server's bytes of such answers
 * (each body once, however many clients it goes to), at most
 * PD_SERVER_HEAVY_UNSENT_BYTES: past it, 503 with Retry-After, so clients
 * of many addresses that never read hold no more than that either.  Small
 * answers are kept for the next asks of the same key (a client walking a
 * session's pages).  The readers are given round-robin by address: a read
 * waiting goes to a reader only when no address with fewer reads running
 * has one waiting, so one address's slow reads hold both readers only
 * while nobody else asks, and another's read starts at the next free one
 * (it queued behind them, 27 s behind two reads of a 10 MB transcript of
 * tiny calls, tried as an attacker would).
 *
 * Everything here runs on the server's thread but heavy_thread().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <stdlib.h>   /* <features.h>: __GLIBC__ */
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/ioctl.h>
#include <linux/sockios.h>   /* SIOCOUTQ */
#endif

#include "pd-server-private.h"

/* The answers kept: each at most ANSWER_MAX bytes, all within ANSWERS_BYTES. */
#define ANSWERS_MAX       16
#define ANSWER_MAX        ((gsize) 1024 * 1024)
#define ANSWERS_BYTES     ((gsize) 8 * 1024 * 1024)
/* An answer longer than this counts in its client's share until it is
 * written (what the socket's buffers take at once is far less): clients
 * that asked a 60 MB session's record and never read held 53 MB each, 24
 * of them 2.16 GB (tried as an attacker would). */
#define ANSWER_UNSENT_MIN ((gsize) 256 * 1024)
/* The long answers' lengths remembered, by key. */
#define LENGTHS_MAX       256

/* A long answer not yet written, in its client's share and the server's
 * unsent bytes. */
typedef struct
{
  GHashTable *clients;   /* the server's heavy_clients, referenced */
  GHashTable *bodies;    /* the server's heavy_unsent, referenced */
  GHashTable *addresses; /* the server's heavy_address_bytes, referenced */
  char       *client;
  GBytes     *body;
  gboolean    released;
  SoupServerMessage *msg; /* not referenced: released before it goes */
  GSource    *timer;     /* the stall's check, while not released */
  gint64      stall_us;
  gsize       floor_bytes;  /* a second */
  gint64      last_progress;
  gint64      window_start;
  guint64     written;   /* into the socket */
  guint64     taken;     /* by the client, as last seen */
  guint64     window_taken;
} Unsent;

typedef struct
{
  PdServerHeavyAnswered answered;
  gpointer              data;
  GDestroyNotify        destroy;
} Waiter;

typedef struct
{
  PdServer             *server;
  char                 *key;
  char                 *client;
  PdServerHeavyRead     read;
  gpointer              read_data;   /* the first waiter's, which it keeps until answered */
  GArray               *waiters;     /* Waiter */
  PdServerHeavyAnswer   answer;
} Flight;

typedef struct
{
  char                *key;
  PdServerHeavyAnswer  answer;
} Kept;

static void
answer_clear (PdServerHeavyAnswer *answer)
{
  g_clear_pointer (&answer->body, g_bytes_unref);
  g_clear_pointer (&answer->session_token, g_free);
}

static void
kept_free (Kept *kept)
{
  g_free (kept->key);
  answer_clear (&kept->answer);
  g_free (kept);
}

static void
flight_free (Flight *flight)
{
  g_free (flight->key);
  g_free (flight->client);
  g_array_unref (flight->waiters);
  answer_clear (&flight->answer);
  g_free (flight);
}

/* The clients' shares are changed on the server's thread and read by the
 * tests on theirs. */
static GMutex clients_lock;
/* Long answers dropped as stalled, ever, by every server of the process:
 * the tests wait on it (an Unsent outlives its server, so it is not the
 * server's). */
static gint unsent_dropped;

/* One more of @client's share under way (a read, or a long answer not yet
 * written). */
static void
client_take (GHashTable *clients,
             const char *client)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  guint *count = g_hash_table_lookup (clients, client);

  if (count == NULL)
    {
      count = g_new0 (guint, 1);
      g_hash_table_insert (clients, g_strdup (client), count);
    }
  (*count)++;
}

static void
client_release (GHashTable *clients,
                const char *client)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  guint *count = g_hash_table_lookup (clients, client);

  if (count != NULL && --*count == 0)
    g_hash_table_remove (clients, client);
}

/* The bytes of the long answers not yet written, each body once: a
 * body answered to many clients is held once.  Under clients_lock. */
static gsize
unsent_bytes_locked (GHashTable *bodies)
{
  GHashTableIter iter;
  gpointer body;
  gsize bytes = 0;

  g_hash_table_iter_init (&iter, bodies);
  while (g_hash_table_iter_next (&iter, &body, NULL))
    bytes += g_bytes_get_size (body);
  return bytes;
}

/* @body in the unsent ones, unless that takes them past @max (a body held
 * already always is). */
static gboolean
body_take (GHashTable *bodies,
           GBytes     *body,
           gsize       max)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  guint *count = g_hash_table_lookup (bodies, body);

  if (count == NULL)
    {
      gsize held = unsent_bytes_locked (bodies);

      if (g_bytes_get_size (body) > max || held > max - g_bytes_get_size (body))
        return FALSE;
      count = g_new0 (guint, 1);
      g_hash_table_insert (bodies, g_bytes_ref (body), count);
    }
  (*count)++;
  return TRUE;
}

static void
body_release (GHashTable *bodies,
              GBytes     *body)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  guint *count = g_hash_table_lookup (bodies, body);

  if (count != NULL && --*count == 0)
    g_hash_table_remove (bodies, body);
}

/* @client's long answers not yet written, in bytes; under clients_lock. */
static gsize
address_bytes_locked (GHashTable *addresses,
                      const char *client)
{
  return GPOINTER_TO_SIZE (g_hash_table_lookup (addresses, client));
}

/* Whether @client may hold @bytes more: its first long answer, however
 * long, or within its part of @max. */
static gboolean
address_fits_locked (GHashTable *addresses,
                     const char *client,
                     gsize       bytes,
                     gsize       max)
{
  gsize held = address_bytes_locked (addresses, client);
  gsize part = max / PD_SERVER_HEAVY_ADDRESS_PART;

  return held == 0 || (held <= part && bytes <= part - held);
}

static void
address_add (GHashTable *addresses,
             const char *client,
             gsize       bytes,
             gboolean    add)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  gsize held = address_bytes_locked (addresses, client);

  held = add ? held + bytes : (held > bytes ? held - bytes : 0);
  if (held == 0)
    g_hash_table_remove (addresses, client);
  else
    g_hash_table_replace (addresses, g_strdup (client), GSIZE_TO_POINTER (held));
}

static void
unsent_release (Unsent *unsent)
{
  if (unsent->timer != NULL)
    {
      g_source_destroy (unsent->timer);
      g_clear_pointer (&unsent->timer, g_source_unref);
    }
  if (unsent->released)
    return;
  unsent->released = TRUE;
  client_release (unsent->clients, unsent->client);
  body_release (unsent->bodies, unsent->body);
  address_add (unsent->addresses, unsent->client, g_bytes_get_size (unsent->body), FALSE);
}

/* Bytes of it taken by its client's connection. */
static void
on_unsent_wrote (SoupServerMessage *msg,
                 guint              chunk_size,
                 Unsent            *unsent)
{
  unsent->written += chunk_size;
}

/* What its client took of it: what was written into the socket but what
 * the socket still holds (unsent, or not yet acknowledged).  The socket's
 * buffer takes megabytes at once and asks for more only once a third of it
 * is free: counted as written, a reader at the floor looked stalled for a
 * minute at a time, and one that never read looked as if it had read them. */
static guint64
unsent_taken (Unsent  *unsent,
              GSocket *socket)
{
#ifdef SIOCOUTQ
  int queued = 0;

  if (socket != NULL && ioctl (g_socket_get_fd (socket), SIOCOUTQ, &queued) == 0 && queued >= 0)
    return unsent->written > (guint64) queued ? unsent->written - (guint64) queued : 0;
#endif
  return unsent->written;
}

/* Its client took no byte of it for the stall time, or less than the floor
 * a second over as long: its connection closed (shut down here; libsoup's
 * write then fails, and it closes the connection as of a client gone), its
 * bytes given back now. */
static gboolean
on_unsent_tick (gpointer data)
{
  Unsent *unsent = data;
  GSocket *socket = _pd_server_message_socket (unsent->msg);
  gint64 now = g_get_monotonic_time ();
  guint64 taken = unsent_taken (unsent, socket);
  gboolean drop;

  if (taken > unsent->taken)
    {
      unsent->taken = taken;
      unsent->last_progress = now;
    }
  drop = now - unsent->last_progress >= unsent->stall_us;
  if (!drop && now - unsent->window_start >= unsent->stall_us)
    {
      guint64 floor = (guint64) unsent->floor_bytes * (guint64) (now - unsent->window_start) / G_USEC_PER_SEC;

      drop = unsent->taken - unsent->window_taken < floor;
      unsent->window_start = now;
      unsent->window_taken = unsent->taken;
    }
  if (!drop)
    return G_SOURCE_CONTINUE;

  g_debug ("a long answer to %s dropped: %" G_GUINT64_FORMAT " of %" G_GSIZE_FORMAT " bytes taken",
           unsent->client, unsent->taken, g_bytes_get_size (unsent->body));
  if (socket != NULL)
    g_socket_shutdown (socket, TRUE, TRUE, NULL);
  /* The timer's source is this one: destroyed by its return. */
  g_clear_pointer (&unsent->timer, g_source_unref);
  unsent_release (unsent);
  g_atomic_int_inc (&unsent_dropped);
  return G_SOURCE_REMOVE;
}

static void
unsent_free (gpointer  data,
             GClosure *closure)
{
  Unsent *unsent = data;

  unsent_release (unsent);
  g_hash_table_unref (unsent->clients);
  g_hash_table_unref (unsent->bodies);
  g_hash_table_unref (unsent->addresses);
  g_bytes_unref (unsent->body);
  g_free (unsent->client);
  g_free (unsent);
}

/* Written whole, or its connection gone. */
static void
on_unsent_done (SoupServerMessage *msg,
                Unsent            *unsent)
{
  unsent_release (unsent);
}

/* Whether a read of @key would only be answered 503: the unsent answers
 * with its last answer's length (a long answer is not kept, so each ask
 * reads again) go past their bound.  The key names the transcript's files
 * and the database's generation, so that length is the next one's too. */
static gboolean
unsent_full (PdServer   *self,
             const char *key)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  gsize held = unsent_bytes_locked (self->heavy_unsent);
  gsize last = GPOINTER_TO_SIZE (g_hash_table_lookup (self->heavy_lengths, key));

  return held >= self->heavy_unsent_max || last > self->heavy_unsent_max - held;
}

/* Whether a read of @key for @client would only be answered 429: its long
 * answers not yet written with @key's last answer's length go past its
 * part of the bound. */
static gboolean
address_full (PdServer   *self,
              const char *client,
              const char *key)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  gsize last = GPOINTER_TO_SIZE (g_hash_table_lookup (self->heavy_lengths, key));

  return !address_fits_locked (self->heavy_address_bytes, client, last, self->heavy_unsent_max);
}

/* The length of @key's long answer, for unsent_full(). */
static void
remember_length (PdServer   *self,
                 const char *key,
                 GBytes     *body)
{
  if (body == NULL || g_bytes_get_size (body) <= ANSWER_UNSENT_MIN)
    {
      g_hash_table_remove (self->heavy_lengths, key);
      return;
    }
  if (g_hash_table_size (self->heavy_lengths) >= LENGTHS_MAX)
    g_hash_table_remove_all (self->heavy_lengths);
  g_hash_table_replace (self->heavy_lengths, g_strdup (key), GSIZE_TO_POINTER (g_bytes_get_size (body)));
}

/* The reads running for @client. */
static guint
running_of (PdServer   *self,
            const char *client)
{
  guint n = 0;

  for (GList *l = self->heavy_running.head; l != NULL; l = l->next)
    n += g_str_equal (((Flight *) l->data)->client, client);
  return n;
}

/* Gives the free readers their reads: each time the oldest waiting read of
 * the addresses with the fewest reads running, so addresses take turns
 * and one that holds readers gets another only when nobody else waits. */
static void
dispatch (PdServer *self)
{
  while (self->heavy_running.length < PD_SERVER_HEAVY_READERS && self->heavy_queued.length > 0)
    {
      GList *best = NULL;
      guint best_running = G_MAXUINT;

      for (GList *l = self->heavy_queued.head; l != NULL && best_running > 0; l = l->next)
        {
          guint running = running_of (self, ((Flight *) l->data)->client);

          if (running < best_running)
            {
              best = l;
              best_running = running;
            }
        }
      g_queue_unlink (&self->heavy_queued, best);
      g_queue_push_tail_link (&self->heavy_running, best);
      {
        g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
        Flight *flight = best->data;
        guint started = GPOINTER_TO_UINT (g_hash_table_lookup (self->heavy_started_by, flight->client));

        /* For the tests: forgotten past a few addresses, never grown by
         * clients of many. */
        if (started == 0 && g_hash_table_size (self->heavy_started_by) >= LENGTHS_MAX)
          g_hash_table_remove_all (self->heavy_started_by);
        g_hash_table_replace (self->heavy_started_by, g_strdup (flight->client), GUINT_TO_POINTER (started + 1));
      }
      g_thread_pool_push (self->heavy_pool, best->data, NULL);
    }
}

static gboolean
flight_done (gpointer data)
{
  Flight *flight = data;
  PdServer *self = flight->server;

  g_hash_table_steal (self->heavy_flights, flight->key);
  g_queue_remove (&self->heavy_running, flight);
  dispatch (self);
  client_release (self->heavy_clients, flight->client);
  remember_length (self, flight->key, flight->answer.status == 200 ? flight->answer.body : NULL);

  /* Kept for the next asks while it stays true: the key names the
   * transcript's files and the database's generation. */
  if (flight->answer.status == 200 && flight->answer.body != NULL &&
      g_bytes_get_size (flight->answer.body) <= ANSWER_MAX)
    {
      Kept *kept = g_new0 (Kept, 1);
      gsize total = 0;

      kept->key = g_strdup (flight->key);
      kept->answer.status = flight->answer.status;
      kept->answer.body = g_bytes_ref (flight->answer.body);
      kept->answer.session_token = g_strdup (flight->answer.session_token);
      g_queue_push_head (&self->heavy_kept, kept);
      for (GList *l = self->heavy_kept.head; l != NULL; l = l->next)
        total += g_bytes_get_size (((Kept *) l->data)->answer.body);
      while (self->heavy_kept.length > ANSWERS_MAX || total > ANSWERS_BYTES)
        {
          Kept *oldest = g_queue_pop_tail (&self->heavy_kept);

          total -= g_bytes_get_size (oldest->answer.body);
          kept_free (oldest);
        }
    }

  for (guint i = 0; i < flight->waiters->len; i++)
    {
      Waiter *waiter = &g_array_index (flight->waiters, Waiter, i);

      waiter->answered (self, waiter->data, &flight->answer);
      if (waiter->destroy != NULL)
        waiter->destroy (waiter->data);
      g_atomic_int_add (&self->heavy_waiting, -1);
      self->pending--;
    }
  g_array_set_size (flight->waiters, 0);
  flight_free (flight);
  _pd_server_maybe_quit (self);
  return G_SOURCE_REMOVE;
}

/* A connection of the heavy ones, opened at the first read that needs it:
 * opened with the server, they took six of a small server's descriptors
 * from its clients whether it had imported sessions or not (serve-hold's
 * 48 descriptors upgraded 5 WebSockets of 8).  At most one per thread of
 * the pool: each gives its connection back before it ends. */
static PdSessionStore *
heavy_reader_take (PdServer  *self,
                   GError   **error)
{
  PdSessionStore *store = g_async_queue_try_pop (self->heavy_readers);
  g_autoptr(PdDb) reader = NULL;

  if (store != NULL)
    return store;
  reader = pd_db_open (self->db_path, PD_DB_NONE, error);
  return reader != NULL ? pd_session_store_new (reader) : NULL;
}

/* A thread of the pool: the read, on a connection of the heavy ones. */
static void
heavy_thread (gpointer data,
              gpointer user_data)
{
  Flight *flight = data;
  PdServer *self = user_data;
  g_autoptr(GError) error = NULL;
  PdSessionStore *store = heavy_reader_take (self, &error);
  PdServerHeavyHook hook;
  gpointer hook_data;

  if (store == NULL)
    {
      static const char text[] = "{\"error\":\"cannot open the database; try again later\"}";

      g_debug ("heavy read: %s", error->message);
      flight->answer.status = 503;
      flight->answer.body = g_bytes_new_static (text, strlen (text));
      goto answered;
    }

  g_atomic_int_inc (&self->heavy_started);
  g_mutex_lock (&self->heavy_lock);
  hook = self->heavy_hook;
  hook_data = self->heavy_hook_data;
  g_mutex_unlock (&self->heavy_lock);
  if (hook != NULL)
    hook (hook_data);

  flight->read (flight->read_data, store, &flight->answer);
  g_async_queue_push (self->heavy_readers, store);
#ifdef __GLIBC__
  /* The read's trees are freed: give their pages back, which this thread's
   * arena would otherwise hold (4 reads of a 60 MB session held 1.9 GB). */
  malloc_trim (0);
#endif
answered:
  {
    /* Answered on the server's thread, never here. */
    GSource *source = g_idle_source_new ();

    g_source_set_callback (source, flight_done, flight, NULL);
    g_source_attach (source, self->context);
    g_source_unref (source);
  }
}

gboolean
_pd_server_heavy_init (PdServer  *self,
                       GError   **error)
{
  self->heavy_readers = g_async_queue_new ();
  self->heavy_unsent_max = PD_SERVER_HEAVY_UNSENT_BYTES;
  self->heavy_stall_ms = PD_SERVER_HEAVY_STALL_MS;
  self->heavy_floor_bytes = PD_SERVER_HEAVY_FLOOR_BYTES;
  self->heavy_pool = g_thread_pool_new (heavy_thread, self, PD_SERVER_HEAVY_READERS, FALSE, error);
  return self->heavy_pool != NULL;
}

/* Once the server's thread ended: no read is under way (each counted as
 * pending, which the thread waited for). */
void
_pd_server_heavy_clear (PdServer *self)
{
  PdSessionStore *store;

  if (self->heavy_pool != NULL)
    g_thread_pool_free (g_steal_pointer (&self->heavy_pool), FALSE, TRUE);
  if (self->heavy_readers != NULL)
    {
      while ((store = g_async_queue_try_pop (self->heavy_readers)))
        g_object_unref (store);
      g_clear_pointer (&self->heavy_readers, g_async_queue_unref);
    }
  g_queue_clear_full (&self->heavy_kept, (GDestroyNotify) kept_free);
  g_clear_pointer (&self->heavy_flights, g_hash_table_unref);
  g_clear_pointer (&self->heavy_started_by, g_hash_table_unref);
  g_clear_pointer (&self->heavy_clients, g_hash_table_unref);
  g_clear_pointer (&self->heavy_unsent, g_hash_table_unref);
  g_clear_pointer (&self->heavy_address_bytes, g_hash_table_unref);
  g_clear_pointer (&self->heavy_lengths, g_hash_table_unref);
}

/**
 * _pd_server_heavy_request:
 * @key: what is read: equal keys read the same
 * @client: the client address asking
 * @read: run on a heavy thread with @data of the first request of @key
 * @answered: called on the server's thread with the answer, then @destroy
 *
 * Answers @data with a kept answer of @key, or once the read of @key under
 * way ends, or starts that read.  Nothing kept of @data, and the caller
 * answers 429, when @client has PD_SERVER_HEAVY_PER_CLIENT reads under way
 * already (PD_SERVER_HEAVY_CLIENT_FULL); 503 when the long answers not yet
 * written to their clients hold the server's bound of them
 * (PD_SERVER_HEAVY_SERVER_FULL): a read would only add one more; 429
 * too when @client's own long answers not yet written hold its part of
 * that bound (PD_SERVER_HEAVY_ADDRESS_FULL).
 */
PdServerHeavyAsked
_pd_server_heavy_request (PdServer              *self,
                          const char            *key,
                          const char            *client,
                          PdServerHeavyRead      read,
                          PdServerHeavyAnswered  answered,
                          gpointer               data,
                          GDestroyNotify         destroy)
{
  Waiter waiter = { answered, data, destroy };
  Flight *flight;
  gboolean new_flight = FALSE;
  guint *count;

  if (client == NULL)
    client = "";
  if (self->heavy_flights == NULL)
    {
      self->heavy_flights = g_hash_table_new (g_str_hash, g_str_equal);
      self->heavy_clients = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      self->heavy_unsent = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                                  (GDestroyNotify) g_bytes_unref, g_free);
      self->heavy_lengths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      self->heavy_address_bytes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_mutex_lock (&clients_lock);
      self->heavy_started_by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_mutex_unlock (&clients_lock);
    }

  for (GList *l = self->heavy_kept.head; l != NULL; l = l->next)
    {
      Kept *kept = l->data;

      if (g_str_equal (kept->key, key))
        {
          g_queue_unlink (&self->heavy_kept, l);
          g_queue_push_head_link (&self->heavy_kept, l);
          answered (self, data, &kept->answer);
          if (destroy != NULL)
            destroy (data);
          return PD_SERVER_HEAVY_ASKED;
        }
    }

  if ((flight = g_hash_table_lookup (self->heavy_flights, key)) == NULL)
    {
      count = g_hash_table_lookup (self->heavy_clients, client);
      if (count != NULL && *count >= PD_SERVER_HEAVY_PER_CLIENT)
        return PD_SERVER_HEAVY_CLIENT_FULL;
      if (address_full (self, client, key))
        return PD_SERVER_HEAVY_ADDRESS_FULL;
      if (unsent_full (self, key))
        return PD_SERVER_HEAVY_SERVER_FULL;
      client_take (self->heavy_clients, client);

      flight = g_new0 (Flight, 1);
      flight->server = self;
      flight->key = g_strdup (key);
      flight->client = g_strdup (client);
      flight->read = read;
      flight->read_data = data;
      flight->waiters = g_array_new (FALSE, FALSE, sizeof (Waiter));
      g_hash_table_insert (self->heavy_flights, flight->key, flight);
      g_queue_push_tail (&self->heavy_queued, flight);
      new_flight = TRUE;
    }

  /* Counted before the read can start: counted after it was handed to a
   * thread, a read was seen started with nobody waiting for it (on a
   * loaded machine, the thread ran first), and a test that took that for
   * the answer made asked again, joining the read still under way
   * (stalled-answers-dropped: no second read in 15 of 40 runs at load
   * 20-32). */
  g_array_append_val (flight->waiters, waiter);
  g_atomic_int_inc (&self->heavy_waiting);
  self->pending++;
  if (new_flight)
    dispatch (self);
  return PD_SERVER_HEAVY_ASKED;
}

/* The answer, its bytes shared with every other request answered so; a
 * long one in its client's share and the server's unsent bytes until it is
 * written, or 503 if those would go past their bound. */
void
_pd_server_heavy_respond (PdServer                  *self,
                          SoupServerMessage         *msg,
                          const PdServerHeavyAnswer *answer)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  Unsent *unsent = NULL;

  if (answer->status != 204 && answer->body != NULL &&
      g_bytes_get_size (answer->body) > ANSWER_UNSENT_MIN && self->heavy_clients != NULL)
    {
      const char *client = soup_server_message_get_remote_host (msg);
      gboolean fits;

      if (client == NULL)
        client = "";
      {
        g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);

        fits = address_fits_locked (self->heavy_address_bytes, client,
                                    g_bytes_get_size (answer->body), self->heavy_unsent_max);
      }
      if (!fits)
        {
          soup_message_headers_replace (headers, "Retry-After", G_STRINGIFY (PD_SERVER_HEAVY_RETRY_AFTER_S));
          _pd_server_respond_error (msg, 429, "too many long answers not yet read by this client; "
                                              "try again after Retry-After");
          return;
        }
      if (!body_take (self->heavy_unsent, answer->body, self->heavy_unsent_max))
        {
          soup_message_headers_replace (headers, "Retry-After", G_STRINGIFY (PD_SERVER_HEAVY_RETRY_AFTER_S));
          _pd_server_respond_error (msg, 503, "too many long answers not yet read by their clients; "
                                              "try again after Retry-After");
          return;
        }
      unsent = g_new0 (Unsent, 1);
      unsent->clients = g_hash_table_ref (self->heavy_clients);
      unsent->bodies = g_hash_table_ref (self->heavy_unsent);
      unsent->body = g_bytes_ref (answer->body);
      unsent->addresses = g_hash_table_ref (self->heavy_address_bytes);
      unsent->client = g_strdup (client);
      unsent->msg = msg;
      unsent->stall_us = (gint64) self->heavy_stall_ms * 1000;
      unsent->floor_bytes = self->heavy_floor_bytes;
      unsent->last_progress = unsent->window_start = g_get_monotonic_time ();
      client_take (unsent->clients, unsent->client);
      address_add (unsent->addresses, unsent->client, g_bytes_get_size (answer->body), TRUE);
    }

  if (answer->session_token != NULL && *answer->session_token)
    soup_message_headers_replace (headers, "X-Session-Token", answer->session_token);
  soup_server_message_set_status (msg, answer->status, NULL);
  if (answer->status == 204 || answer->body == NULL)
    return;
  soup_message_headers_set_content_type (headers, "application/json", NULL);
  soup_message_body_append_bytes (soup_server_message_get_response_body (msg), answer->body);

  if (unsent != NULL)
    {
      /* The closure's end releases it too: a message gone unfinished. */
      g_signal_connect_data (msg, "finished", G_CALLBACK (on_unsent_done), unsent, unsent_free, 0);
      g_signal_connect (msg, "disconnected", G_CALLBACK (on_unsent_done), unsent);
      g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_unsent_wrote), unsent);
      /* Checked six times a stall time. */
      unsent->timer = g_timeout_source_new (MAX (self->heavy_stall_ms / 6, 10));
      g_source_set_callback (unsent->timer, on_unsent_tick, unsent, NULL);
      g_source_attach (unsent->timer, self->context);
    }
}

void
_pd_server_heavy_set_hook (PdServer          *self,
                           PdServerHeavyHook  hook,
                           gpointer           user_data)
{
  g_mutex_lock (&self->heavy_lock);
  self->heavy_hook = hook;
  self->heavy_hook_data = user_data;
  g_mutex_unlock (&self->heavy_lock);
}

guint
_pd_server_heavy_get_started (PdServer *self)
{
  return (guint) g_atomic_int_get (&self->heavy_started);
}

guint
_pd_server_heavy_get_waiting (PdServer *self)
{
  return (guint) g_atomic_int_get (&self->heavy_waiting);
}

guint
_pd_server_heavy_get_share (PdServer   *self,
                            const char *client)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);
  guint *count;

  if (self->heavy_clients == NULL)
    return 0;
  count = g_hash_table_lookup (self->heavy_clients, client);
  return count != NULL ? *count : 0;
}

guint
_pd_server_heavy_get_started_by (PdServer   *self,
                                 const char *client)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);

  if (self->heavy_started_by == NULL)
    return 0;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->heavy_started_by, client));
}

/* The bytes of long answers not yet written, each body once. */
gsize
_pd_server_heavy_get_unsent (PdServer *self)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);

  return self->heavy_unsent != NULL ? unsent_bytes_locked (self->heavy_unsent) : 0;
}

guint
_pd_server_heavy_get_dropped (PdServer *self)
{
  return (guint) g_atomic_int_get (&unsent_dropped);
}

void
_pd_server_heavy_set_unsent_max (PdServer *self,
                                 gsize     max)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&clients_lock);

  self->heavy_unsent_max = max;
}

void
_pd_server_heavy_set_stall (PdServer *self,
                            guint     stall_ms,
                            gsize     floor_bytes)
{
  self->heavy_stall_ms = stall_ms;
  self->heavy_floor_bytes = floor_bytes;
}
