/* vocab.h — the tokenizer of a GGUF model, as llama.cpp's llama-vocab.cpp reads and applies it:
 *  - "gpt2": byte-level BPE (tokenizer.ggml.tokens + merges), pre-tokenized by the regexes of
 *    tokenizer.ggml.pre ("default" (absent): llama.cpp's four-regex list; "gpt-2"; "llama3"/"llama-bpe"; "qwen2",
 *    "qwen35" and the names llama.cpp maps to them; others refused by name);
 *  - "llama": SentencePiece (tokens + scores + token_type), space prefix "▁", byte fallback <0xXX>.
 * Special tokens (token_type CONTROL / USER_DEFINED) are matched in the text when parse_special is set. */
#ifndef STRATA_VOCAB_H
#define STRATA_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_map.h"

typedef struct strata_vocab strata_vocab;

/* Builds the tokenizer from the model's tokenizer.* keys. 0, or -1 with one line in err naming the key (e.g.
 * an unknown tokenizer.ggml.model or pre-tokenizer: "model: PATH: tokenizer.ggml.pre 'xyz' is not one strata-ref
 * implements (it implements: ...)"). */
int strata_vocab_load(const strata_gguf_map *m, strata_vocab **out, char *err, size_t errlen);
void strata_vocab_free(strata_vocab *v);

int32_t strata_vocab_n_tokens(const strata_vocab *v);
/* Special ids, -1 when the model has none: 0 BOS, 1 EOS, 2 EOT, 3 UNK, 4 PAD, 5 NL */
int32_t strata_vocab_special(const strata_vocab *v, int which);
/* Whether generation ends at this token (EOS, EOT, or a token llama.cpp counts as end-of-generation). */
int strata_vocab_is_eog(const strata_vocab *v, int32_t tok);

#define STRATA_TOK_ADD_SPECIAL 1   /* add BOS/EOS as tokenizer.ggml.add_bos_token / add_eos_token say */
#define STRATA_TOK_PARSE_SPECIAL 2 /* match special tokens' text in the input */
/* Tokenizes text[0..len). Writes at most cap ids; returns the count the whole text needs (call again with a larger
 * buffer when it is > cap), or -1 on a bad argument. */
int64_t strata_tokenize(const strata_vocab *v, const char *text, size_t len, int flags, int32_t *out, size_t cap);
/* The bytes of one token as text (byte-level BPE decoded to bytes; SPM "▁" to space, <0xXX> to the byte).
 * Control tokens give "" unless special is set. Returns the length (may be > cap: nothing written past cap). */
int64_t strata_token_piece(const strata_vocab *v, int32_t tok, int special, char *buf, size_t cap);

#endif
