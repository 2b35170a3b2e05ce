; Constructs the tree-sitter frontend turns into facts, for C and C++.
; Capture names are the fact kinds analyzer/frontends/treesitter.py and ts_sites.py read.
; Definitions with a body (C++ `= delete` / `= default` ones have none).
(function_definition body: (_)) @function
(for_statement) @loop.for
(while_statement) @loop.while
(do_statement) @loop.do
(call_expression) @call
(assignment_expression) @assign
(update_expression) @update
(init_declarator) @init
(declaration declarator: (_) @local)
(comment) @comment
(preproc_function_def) @macro
(preproc_def name: (identifier) value: (preproc_arg)) @constant
; `#if 0` blocks: code no compiler sees (treesitter.py drops the facts inside them).
(preproc_if condition: (number_literal)) @if_literal
(initializer_pair) @binding
