# embedded_report.cmake — compiles report.html's page (reports/templates/:
# report.html with its {{style}}, {{data}} and {{script}} slots, report.css,
# report.js) into sp_reports, as harness/embedded_schema.cmake does the spec
# schema: the installed `scatterproof` needs no source tree to write a
# report, and the page's HTML, CSS and JavaScript sit in files of their own,
# where an editor, a formatter or a linter sees them.
# Use: include(reports/embedded_report.cmake) after add_library(sp_reports ...).
set(SP_REPORT_TEMPLATE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/reports/templates)
foreach(part html css js)
  set(file ${SP_REPORT_TEMPLATE_DIR}/report.${part})
  # Re-run configure when a template changes, so the embedded copy follows it.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  string(TOUPPER ${part} upper)
  file(READ ${file} SP_REPORT_${upper})
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/embedded_report.cc.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_report.cc @ONLY)
target_sources(sp_reports PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_report.cc)
