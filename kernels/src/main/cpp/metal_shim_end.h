// metal_shim_end.h — undoes metal_shim.h's MSL spellings after the .metal source has been included, so
// the rest of the translation unit is ordinary C++ again (std::thread, identifiers named `kernel`, …).
#undef kernel
#undef device
#undef thread
#undef constant
#undef buffer
#undef thread_position_in_grid
#undef function_constant
