# The CTest test html_report_browser (tests/html_report_check.py): a real
# run's report.html rendered by headless Chromium (scripts/setup.sh installs
# it; missing, the test fails): the matrix and a failure's picture must be in
# the rendered DOM. Its screenshot, the CI artifact, is kept at
# BUILD/html-report-screenshot.png.
if(SP_BUILD_TESTS)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  add_test(NAME html_report_browser
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/html_report_check.py
                   --scatterproof $<TARGET_FILE:scatterproof> --specs ${CMAKE_CURRENT_SOURCE_DIR}/specs
                   --screenshot ${CMAKE_CURRENT_BINARY_DIR}/html-report-screenshot.png)
  set_tests_properties(html_report_browser PROPERTIES TIMEOUT 600)
endif()
