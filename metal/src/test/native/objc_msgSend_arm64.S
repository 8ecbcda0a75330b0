/*
 * objc_msgSend for the Darwin stand-in, arm64 AAPCS64 (Linux ELF).
 *
 * As Apple's (https://developer.apple.com/documentation/objectivec/1456712-objc_msgsend): receiver in
 * x0, selector in x1, the method's own arguments where the method expects them (x2-x7, q0-q7, the
 * stack, x8 for an indirect result); this finds the method (standin_msg_lookup in darwin_standin.c) and
 * branches to it through x17 (as Apple's does) with all of them as it found them, so the method returns
 * straight to the caller. A nil receiver returns 0 in x0, x1, d0-d3 without a lookup.
 */
        .text
        .globl  objc_msgSend
        .type   objc_msgSend, %function
        .p2align 4
objc_msgSend:
        .cfi_startproc
        cbz     x0, .Lnil
        stp     x29, x30, [sp, #-224]!
        .cfi_def_cfa_offset 224
        .cfi_offset x29, -224
        .cfi_offset x30, -216
        mov     x29, sp
        stp     x0, x1, [sp, #16]
        stp     x2, x3, [sp, #32]
        stp     x4, x5, [sp, #48]
        stp     x6, x7, [sp, #64]
        str     x8, [sp, #80]
        stp     q0, q1, [sp, #96]
        stp     q2, q3, [sp, #128]
        stp     q4, q5, [sp, #160]
        stp     q6, q7, [sp, #192]
        bl      standin_msg_lookup      /* (self, _cmd) are already in x0, x1 */
        mov     x17, x0
        ldp     q6, q7, [sp, #192]
        ldp     q4, q5, [sp, #160]
        ldp     q2, q3, [sp, #128]
        ldp     q0, q1, [sp, #96]
        ldr     x8, [sp, #80]
        ldp     x6, x7, [sp, #64]
        ldp     x4, x5, [sp, #48]
        ldp     x2, x3, [sp, #32]
        ldp     x0, x1, [sp, #16]
        ldp     x29, x30, [sp], #224
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        br      x17                     /* a tail branch: the method returns to our caller */
.Lnil:
        mov     x0, #0
        mov     x1, #0
        movi    d0, #0
        movi    d1, #0
        movi    d2, #0
        movi    d3, #0
        ret
        .cfi_endproc
        .size   objc_msgSend, .-objc_msgSend

        .section .note.GNU-stack,"",%progbits
