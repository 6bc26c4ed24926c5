#include <stdlib.h>
#include <string.h>

struct buffer {
    char *data;
    size_t length;
};

/** Appends bytes to the end of a buffer. */
int buffer_append(struct buffer *buf, const char *bytes, size_t count)
{
    char *grown = realloc(buf->data, buf->length + count);
    if (grown == NULL) {
        return -1;
    }
    memcpy(grown + buf->length, bytes, count);
    buf->data = grown;
    buf->length += count;
    return 0;
}

/** Frees the memory of a buffer. */
void buffer_free(struct buffer *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->length = 0;
}
