# Warnings for Headroom's own targets (not for third-party headers, which are SYSTEM).
function(headroom_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
endfunction()
