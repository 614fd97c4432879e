# embedded_schema.cmake — compiles specs/schema/spec.schema.json (the
# structural schema; harness/spec_schema.cc fills its op-specific part from
# the op table at run time) into sp_harness, so the installed `scatterproof`
# binary needs no source tree at run time.
# Use: include(harness/embedded_schema.cmake) after add_library(sp_harness ...).
# Without it the loader reads SP_SOURCE_DIR/specs/schema/spec.schema.json.
set(SP_SPEC_SCHEMA_FILE ${CMAKE_CURRENT_SOURCE_DIR}/specs/schema/spec.schema.json)
# Re-run configure when the schema changes, so the embedded copy follows it.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${SP_SPEC_SCHEMA_FILE})
file(READ ${SP_SPEC_SCHEMA_FILE} SP_SPEC_SCHEMA_TEXT)
configure_file(${CMAKE_CURRENT_LIST_DIR}/embedded_schema.cc.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_schema.cc @ONLY)
target_sources(sp_harness PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_schema.cc)
target_compile_definitions(sp_harness PRIVATE SP_HAVE_EMBEDDED_SCHEMA)
