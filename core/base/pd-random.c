/* pd-random.c: the one source of ids, tokens and nonces (see pd-random.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-random"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <gio/gio.h>

#include "pd-random-private.h"

/* Reads @length bytes of @path (the kernel's /dev/urandom), looping over
 * interrupted and short reads. */
gboolean
_pd_random_read_urandom (const char  *path,
                         guint8      *buffer,
                         gsize        length,
                         GError     **error)
{
  gsize done = 0;
  int fd;

  do
    fd = open (path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot open %s: %s", path, g_strerror (saved));
      return FALSE;
    }

  while (done < length)
    {
      ssize_t n = read (fd, buffer + done, length - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : EIO;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "cannot read %s: %s", path, n < 0 ? g_strerror (saved) : "end of file");
          close (fd);
          return FALSE;
        }
      done += (gsize) n;
    }

  close (fd);
  return TRUE;
}

/**
 * pd_random_bytes:
 *
 * Fills @buffer with @length bytes from the kernel's cryptographic
 * generator.  getrandom() may return fewer bytes than asked (beyond 256
 * bytes, or when a signal arrives): it is called again for the rest.
 */
void
pd_random_bytes (guint8 *buffer,
                 gsize   length)
{
  gsize done = 0;

  g_return_if_fail (buffer != NULL || length == 0);

  while (done < length)
    {
      ssize_t n = getrandom (buffer + done, length - done, 0);

      if (n > 0)
        {
          done += (gsize) n;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;

      /* ENOSYS (a kernel before 3.17) or a sandbox that forbids the call:
       * the device gives the same generator's output. */
      {
        g_autoptr(GError) error = NULL;
        int saved = n < 0 ? errno : EIO;

        if (!_pd_random_read_urandom ("/dev/urandom", buffer + done, length - done, &error))
          g_error ("no cryptographic random source: getrandom() failed (%s) and %s",
                   g_strerror (saved), error->message);
        return;
      }
    }
}

/**
 * pd_random_hex:
 * @n_bytes: how many random bytes; the text is twice as long
 *
 * Returns: (transfer full): @n_bytes random bytes as lower-case hex.
 */
char *
pd_random_hex (gsize n_bytes)
{
  static const char digits[] = "0123456789abcdef";
  g_autofree guint8 *bytes = g_malloc (MAX (n_bytes, 1));
  char *out = g_malloc (n_bytes * 2 + 1);

  pd_random_bytes (bytes, n_bytes);
  for (gsize i = 0; i < n_bytes; i++)
    {
      out[2 * i] = digits[bytes[i] >> 4];
      out[2 * i + 1] = digits[bytes[i] & 0xf];
    }
  out[n_bytes * 2] = '\0';
  explicit_bzero (bytes, n_bytes);
  return out;
}
