// One input dtype of the differential evaluator (a translation unit per dtype keeps each
// compile small and lets parallel builds split the work).
#include "case.hpp"
template tdiff::result tdiff::eval_typed<double>(const tdiff::case_t&);
