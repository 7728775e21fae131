//! Integration tests: tools (one binary, one module per subject): the tool rounds of a call
//! (`rounds`), each vendor's tool wire against a local server replaying recorded traffic
//! (`wire_*`), and the tool call as the answer's channel (`output_mode`).

mod rounds;
