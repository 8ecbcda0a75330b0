/*
 * objc_msgSend for the Darwin stand-in, arm64 AAPCS64 (Linux ELF).
 *
 * As Apple's (https://developer.apple.com/documentation/objectivec/1456712-objc_msgsend): receiver in
 * x0, selector in x1, the method's own arguments where the method expects them (x2-x7, q0-q7, the
 * stack, x8 for an indirect result); this finds the method (standin_msg_lookup in standin_objc.c) and
 * branches to it through x17 (as Apple's does) with all of them as it found them, so the method returns
 * straight to the caller. A nil receiver returns 0 in x0, x1, d0-d3 without a lookup.
 */
/*
 * Where each argument register lives in the frame while standin_msg_lookup runs (above the saved
 * x29/x30 at [sp]): `pair` is stp or ldp, `single` str or ldr, so one list saves and restores them.
 */
        .macro  ARG_REGS pair, single
        \pair   x0, x1, [sp, #16]
        \pair   x2, x3, [sp, #32]
        \pair   x4, x5, [sp, #48]
        \pair   x6, x7, [sp, #64]
        \single x8, [sp, #80]
        \pair   q0, q1, [sp, #96]
        \pair   q2, q3, [sp, #128]
        \pair   q4, q5, [sp, #160]
        \pair   q6, q7, [sp, #192]
        .endm

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
        ARG_REGS stp, str               /* save them all */
        bl      standin_msg_lookup      /* (self, _cmd) are already in x0, x1 */
        mov     x17, x0
        ARG_REGS ldp, ldr               /* and hand them over as they were */
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
