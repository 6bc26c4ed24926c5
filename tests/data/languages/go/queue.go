// Package queue is the Go fixture project of tests/test_languages.py.
package queue

import "errors"

// Queue holds jobs in arrival order.
type Queue struct {
	jobs []string
}

// PushJob appends a job to the end of the queue.
func (q *Queue) PushJob(job string) int {
	q.jobs = append(q.jobs, job)
	return len(q.jobs)
}

// PopJob removes the first job of the queue and returns it.
func (q *Queue) PopJob() (string, error) {
	if len(q.jobs) == 0 {
		return "", errors.New("empty queue")
	}
	first := q.jobs[0]
	q.jobs = q.jobs[1:]
	return first, nil
}

// NewQueue makes an empty queue.
func NewQueue() *Queue {
	return &Queue{}
}
