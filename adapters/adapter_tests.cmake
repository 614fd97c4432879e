# adapter_tests.cmake — one CTest conformance test per adapter of
# adapters/manifest.json that has a "test" object (fields in
# adapters/README.md). Included by the top-level CMakeLists.txt inside its
# tests block; backends/process/process_backend.cc reads the same manifest to
# register the backends, so an adapter is one Python file plus one manifest
# entry.
#
# Each test is an sp_add_spec_suite (cmake/sp_helpers.cmake): `scatterproof
# run --backend BACKEND [--layouts L] [--expectations FILE] SPECS...` with
# its report in test-reports/BACKEND. Without the entry's venv (its "venv"
# field, default .venv; .venv-current for the *-current backends) these fail
# with exit 4, printing "backend 'NAME' is unavailable: no Python environment
# at ...": they are never skipped.

set(SP_ADAPTER_MANIFEST ${PROJECT_SOURCE_DIR}/adapters/manifest.json)
# Editing the manifest re-runs CMake, so a new entry gets its test.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${SP_ADAPTER_MANIFEST})
file(READ ${SP_ADAPTER_MANIFEST} sp_manifest)

# A manifest field as text, or "" when absent; a malformed manifest stops
# the configure with the field named.
function(sp_manifest_get out)
  string(JSON value ERROR_VARIABLE error GET "${sp_manifest}" ${ARGN})
  if(error)
    set(value "")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

sp_manifest_get(sp_format format)
if(NOT sp_format STREQUAL "scatterproof-adapters/1")
  message(FATAL_ERROR "${SP_ADAPTER_MANIFEST}: field 'format' is not \"scatterproof-adapters/1\"")
endif()
string(JSON sp_adapter_count ERROR_VARIABLE sp_error LENGTH "${sp_manifest}" adapters)
if(sp_error)
  message(FATAL_ERROR "${SP_ADAPTER_MANIFEST}: field 'adapters': ${sp_error}")
endif()

if(sp_adapter_count GREATER 0)
  math(EXPR sp_last "${sp_adapter_count} - 1")
  foreach(i RANGE ${sp_last})
    sp_manifest_get(backend adapters ${i} backend)
    sp_manifest_get(test_name adapters ${i} test name)
    if(backend STREQUAL "")
      message(FATAL_ERROR "${SP_ADAPTER_MANIFEST}: adapters[${i}].backend is missing")
    endif()
    if(test_name STREQUAL "")
      continue()  # an adapter without a conformance test of its own
    endif()

    # Spec paths relative to the source root; a glob must match something
    # (a typo would otherwise test nothing and pass).
    set(specs "")
    string(JSON spec_count ERROR_VARIABLE sp_error LENGTH "${sp_manifest}" adapters ${i} test specs)
    if(sp_error OR spec_count EQUAL 0)
      message(FATAL_ERROR "${SP_ADAPTER_MANIFEST}: adapters[${i}].test.specs is missing or empty")
    endif()
    math(EXPR last_spec "${spec_count} - 1")
    foreach(k RANGE ${last_spec})
      sp_manifest_get(pattern adapters ${i} test specs ${k})
      if(pattern MATCHES "[*?]")
        file(GLOB matched ${PROJECT_SOURCE_DIR}/${pattern})
        list(SORT matched)
      elseif(EXISTS ${PROJECT_SOURCE_DIR}/${pattern})
        set(matched ${PROJECT_SOURCE_DIR}/${pattern})
      else()
        set(matched "")
      endif()
      if(NOT matched)
        message(FATAL_ERROR "${SP_ADAPTER_MANIFEST}: adapters[${i}].test.specs[${k}] '${pattern}' matches no file")
      endif()
      list(APPEND specs ${matched})
    endforeach()

    set(options "")
    sp_manifest_get(layouts adapters ${i} test layouts)
    if(NOT layouts STREQUAL "")
      list(APPEND options LAYOUTS ${layouts})
    endif()
    sp_manifest_get(expectations adapters ${i} test expectations)
    if(NOT expectations STREQUAL "")
      list(APPEND options EXPECTATIONS ${PROJECT_SOURCE_DIR}/${expectations})
    endif()
    # TIMEOUT: a real framework imports for seconds and runs every case out
    # of process.
    sp_add_spec_suite(NAME ${test_name} BACKENDS ${backend} PATHS ${specs} ${options} TIMEOUT 900
                      REPORT_DIR ${PROJECT_BINARY_DIR}/test-reports/${backend})

    # An entry with a "cpu" device variant: NAME@cpu judges every case of the
    # entry's specs (at every layout) as NAME does, its version names the
    # device, and NAME@cuda is unavailable, with the reason, on a machine
    # without a GPU (tests/device_variant_check.py).
    string(JSON devices ERROR_VARIABLE sp_error GET "${sp_manifest}" adapters ${i} devices)
    if(NOT sp_error AND devices MATCHES "\"cpu\"" AND NOT expectations STREQUAL "")
      find_package(Python3 COMPONENTS Interpreter REQUIRED)
      add_test(NAME ${test_name}_at_cpu
               COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/device_variant_check.py
                       --scatterproof $<TARGET_FILE:scatterproof> --backend ${backend}
                       --expectations ${PROJECT_SOURCE_DIR}/${expectations}
                       --report-dir ${PROJECT_BINARY_DIR}/test-reports/${backend}-at-cpu ${specs})
      set_tests_properties(${test_name}_at_cpu PROPERTIES TIMEOUT 900)
    endif()
  endforeach()
endif()

# The adapters' error tables (adapters/test_classifiers.py, unittest): every
# row classifies at least one recorded real message, version ranges select
# the right rows, an unknown message gets no category. The tables are read
# from the adapters' sources, so no framework is imported; common.py needs
# NumPy, hence the venv's interpreter, as the adapters use.
add_test(NAME adapter_classifiers
         COMMAND ${PROJECT_SOURCE_DIR}/.venv/bin/python ${PROJECT_SOURCE_DIR}/adapters/test_classifiers.py)

# The adapter SDK's wire encoding of outputs (adapters/test_wire.py,
# unittest): shapes kept, 0-d included; NumPy only.
add_test(NAME adapter_wire COMMAND ${PROJECT_SOURCE_DIR}/.venv/bin/python ${PROJECT_SOURCE_DIR}/adapters/test_wire.py)

# The mindspore adapter returns its operands after every call
# (adapters/test_mindspore_operands.py, unittest; PROTOCOL.md "Operands after
# the call"): it runs the adapter with the venv's interpreter, as the
# mindspore backend does. Without MindSpore it fails with the adapter's
# "unavailable" reason, as the adapter suites do: never skipped.
add_test(NAME adapter_mindspore_operands
         COMMAND ${PROJECT_SOURCE_DIR}/.venv/bin/python ${PROJECT_SOURCE_DIR}/adapters/test_mindspore_operands.py)

# The torch adapters' device description (adapters/test_torch_device.py,
# unittest): the NVIDIA driver version parsed from both kernel modules'
# /proc lines. Imports torch, hence .venv-current's interpreter.
add_test(NAME adapter_torch_device
         COMMAND ${PROJECT_SOURCE_DIR}/.venv-current/bin/python ${PROJECT_SOURCE_DIR}/adapters/test_torch_device.py)

# uint16 / uint32 / uint64 on the wire (adapters/test_wire_unsigned.py,
# unittest): the SDK's NumPy mapping both ways, bit-exact above 2^63, and the
# ONNX model's element types. Imports onnx, hence .venv-current's interpreter.
add_test(NAME adapter_wire_unsigned
         COMMAND ${PROJECT_SOURCE_DIR}/.venv-current/bin/python ${PROJECT_SOURCE_DIR}/adapters/test_wire_unsigned.py)

# specs/onnx is generated from ONNX's backend node tests
# (scripts/import-onnx-tests, run with .venv-current's interpreter, which
# holds onnx): --check fails when the checked-in files differ from what the
# importer writes. Without .venv-current or onnx it fails (never skipped),
# printing that onnx cannot be imported.
add_test(NAME onnx_import_check
         COMMAND ${PROJECT_SOURCE_DIR}/.venv-current/bin/python ${PROJECT_SOURCE_DIR}/scripts/import-onnx-tests --check)

# Device-side asserts without a GPU (tests/device_assert_check.py): the torch
# adapter's emulated device (--device fakecuda) asserts where the CPU refuses
# an index value; the supervisor must call it device_assert with the
# kernel's file:line, blame the right case, restart from a warm standby in
# under a second, and run every later case. Needs .venv's torch, as
# real_torch_python does: without it the test fails (never skipped).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME device_assert_emulated
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/device_assert_check.py
                 --scatterproof $<TARGET_FILE:scatterproof> --python ${PROJECT_SOURCE_DIR}/.venv/bin/python
                 --work ${PROJECT_BINARY_DIR}/test-reports/device-assert)
set_tests_properties(device_assert_emulated PROPERTIES TIMEOUT 600)
