# -DORCH_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer; UB aborts so a test run cannot pass over it.
option(ORCH_SANITIZE "build with ASan + UBSan" OFF)
if(ORCH_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
